// Step type agent (SPEC §2.8): keys, catalogue checks, where it may stand.
import { describeStepType } from '../../../test/support/step-tester.js';
import { agentStep } from './agent.js';

describeStepType(agentStep, {
  valid: [
    { def: { type: 'agent', prompt: 'Fix {{.Task.Title}}' } },
    {
      def: {
        id: 'impl',
        name: 'Implement',
        type: 'agent',
        prompt: '{{if eq .Task.Fields.kind "bug"}}fix{{else}}build{{end}}',
        agent: 'claude',
        model: 'opus',
        effort: 'high',
        permission_mode: 'restricted',
        on_input: 'deny',
        input_timeout: '2h',
        check: 'npm test',
        check_timeout: '10m',
        if: '{{eq .Step.Attempt 1}}',
        max_retries: 0,
        retry_backoff: '30s',
        timeout: '1h30m',
        allow_failure: true,
      },
    },
    { def: { type: 'agent', prompt: 'x', model: '' } },
    { def: { type: 'agent', prompt: 'x' }, context: 'parallel' },
    { def: { type: 'agent', prompt: 'x' }, context: 'loop' },
    { def: { id: 'resolve', prompt: 'fix {{range .Conflicts}}{{.}} {{end}}' }, context: 'merge' },
    { def: { type: 'agent', prompt: 'x', on_input: 'require' } },
    {
      def: { type: 'agent', prompt: 'x', agent: 'claude', model: 'gpt-9' },
      warnings: [{ path: 'model', code: 'unknown_model' }],
    },
    {
      def: { type: 'agent', prompt: 'x', effort: 'max' },
      defaults: { agent: 'codex' },
      warnings: [{ path: 'effort', code: 'unknown_effort' }],
    },
    {
      def: { type: 'agent', prompt: 'x', check_timeout: '5m' },
      warnings: [{ path: 'check_timeout', code: 'check_timeout_without_check' }],
    },
  ],
  invalid: [
    { def: { type: 'agent' }, errors: [{ path: 'prompt', code: 'required' }] },
    { def: { type: 'agent', prompt: '  ' }, errors: [{ path: 'prompt', code: 'empty' }] },
    {
      def: { type: 'agent', prompt: 'x', run: 'make' },
      errors: [{ path: 'run', code: 'key_not_valid_for_type' }],
    },
    {
      def: { type: 'agent', prompt: 'x', agent: 'gemini' },
      errors: [{ path: 'agent', code: 'unknown_agent' }],
    },
    {
      def: { type: 'agent', prompt: 'x', permission_mode: 'yolo' },
      errors: [{ path: 'permission_mode', code: 'invalid_value' }],
    },
    {
      def: { type: 'agent', prompt: 'x', on_input: 'ask' },
      errors: [{ path: 'on_input', code: 'invalid_value' }],
    },
    {
      def: { type: 'agent', prompt: 'x', timeout: '0' },
      errors: [{ path: 'timeout', code: 'invalid_duration' }],
    },
    {
      def: { type: 'agent', prompt: 'x', input_timeout: '1 day' },
      errors: [{ path: 'input_timeout', code: 'invalid_duration' }],
    },
    {
      def: { type: 'agent', prompt: 'x', max_retries: -1 },
      errors: [{ path: 'max_retries', code: 'out_of_range' }],
    },
    {
      def: { type: 'agent', prompt: 'x', id: 'Bad Id' },
      errors: [{ path: 'id', code: 'invalid_format' }],
    },
    {
      def: { type: 'agent', prompt: 'Fix {{.Task.Title' },
      errors: [{ path: 'prompt', code: 'template_syntax' }],
    },
    {
      def: { type: 'agent', prompt: 'x', check: '{{nosuchfunc}}' },
      errors: [{ path: 'check', code: 'template_syntax' }],
    },
    {
      def: { type: 'agent', prompt: 'x', if: '' },
      errors: [{ path: 'if', code: 'empty' }],
    },
    {
      def: { type: 'agent', prompt: 'x', on_input: 'require' },
      context: 'parallel',
      errors: [{ path: 'on_input', code: 'input_required_here' }],
    },
    {
      def: { type: 'agent', prompt: 'x' },
      context: 'loop',
      defaults: { on_input: 'require' },
      errors: [{ path: '$.defaults.on_input', code: 'input_required_here' }],
    },
    {
      def: { prompt: 'resolve' },
      context: 'merge',
      errors: [{ path: 'id', code: 'required' }],
    },
    {
      def: { id: 'r', prompt: 'resolve', retry_backoff: '1m' },
      context: 'merge',
      errors: [{ path: 'retry_backoff', code: 'resolver_backoff' }],
    },
    {
      def: { id: 'r', prompt: 'resolve', on_input: 'require' },
      context: 'merge',
      errors: [{ path: 'on_input', code: 'input_required_here' }],
    },
  ],
});
