// Step type command (SPEC §2.8): keys, shells, env, and shells a pinned container cannot run.
import { describeStepType } from '../../../test/support/step-tester.js';
import { commandStep } from './command.js';

describeStepType(commandStep, {
  valid: [
    { def: { type: 'command', run: 'make test' } },
    {
      def: {
        id: 'test',
        type: 'command',
        run: 'npm test -- {{.Task.Fields.suite}}',
        shell: 'sh',
        env: { CI: '1', LITERAL: '{{ not a template' },
        check: 'git diff --exit-code',
        check_timeout: '90s',
        if: 'true',
        max_retries: 2,
        retry_backoff: '5m',
        timeout: '20m',
        allow_failure: true,
      },
    },
    { def: { type: 'command', run: 'Get-ChildItem', shell: 'pwsh' } },
    {
      def: { type: 'command', run: 'dir', shell: 'cmd' },
      defaults: { container: { image: '' } },
      containerImage: 'node:22',
    },
    { def: { type: 'command', run: 'make', shell: 'sh' }, containerImage: 'node:22' },
    { def: { type: 'command', run: 'make' }, context: 'parallel' },
    { def: { type: 'command', run: 'make' }, context: 'loop' },
  ],
  invalid: [
    { def: { type: 'command' }, errors: [{ path: 'run', code: 'required' }] },
    {
      def: { type: 'command', run: 'x', shell: 'bash' },
      errors: [{ path: 'shell', code: 'invalid_value' }],
    },
    {
      def: { type: 'command', run: 'x', env: { 'BAD-NAME': '1' } },
      errors: [{ path: 'env.BAD-NAME', code: 'invalid_format' }],
    },
    {
      def: { type: 'command', run: 'x', env: { N: 1 } },
      errors: [{ path: 'env.N', code: 'invalid_type' }],
    },
    {
      def: { type: 'command', run: 'x', prompt: 'y' },
      errors: [{ path: 'prompt', code: 'key_not_valid_for_type' }],
    },
    {
      def: { type: 'command', run: 'Get-ChildItem', shell: 'pwsh' },
      containerImage: 'node:22',
      errors: [{ path: 'shell', code: 'shell_with_container' }],
    },
    {
      def: { type: 'command', run: 'dir', shell: 'cmd' },
      defaults: { container: { image: 'alpine:3' } },
      errors: [{ path: 'shell', code: 'shell_with_container' }],
    },
    {
      def: { type: 'command', run: 'echo {{end}}' },
      errors: [{ path: 'run', code: 'template_syntax' }],
    },
    {
      def: { id: 'c', type: 'command', run: 'x' },
      context: 'merge',
      errors: [{ path: 'type', code: 'not_allowed_here' }],
    },
  ],
});
