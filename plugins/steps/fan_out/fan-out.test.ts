// Step type fan_out (SPEC §2.8 fan_out and merge; decision 028 for the lane: template).
import { describeStepType } from '../../../test/support/step-tester.js';
import { fanOutStep } from './fan-out.js';

const resolver = { id: 'resolve', prompt: 'Resolve {{range .Conflicts}}{{.}} {{end}}' };

describeStepType(fanOutStep, {
  valid: [
    { def: { type: 'fan_out', lanes: [{ id: 'api', workflow: 'refactor-api' }] } },
    {
      def: {
        id: 'split',
        type: 'fan_out',
        if: 'true',
        timeout: '4h',
        max_retries: 2,
        retry_backoff: '1m',
        lanes: [
          {
            id: 'api',
            workflow: 'refactor',
            if: '{{ne .Task.Fields.skip "api"}}',
            fields: { package: 'api', depth: 2, dry: false },
            agent: 'codex',
            model: 'gpt-5',
            effort: 'high',
            priority: 5,
          },
          {
            id: 'web',
            steps: [
              { id: 'web-impl', type: 'agent', prompt: 'refactor web' },
              { id: 'web-gate', type: 'manual', instructions: 'look' },
              { type: 'fan_out', lanes: [{ id: 'deep', workflow: 'x' }] },
            ],
          },
        ],
        merge: { on_conflict: 'agent', agent: resolver },
      },
    },
    {
      def: {
        type: 'fan_out',
        lane: {
          id: 'pkg',
          for_each: '{{.Steps.list.Result}}',
          workflow: 'fix-package',
          fields: { package: '{{.Loop.Item}}' },
        },
        merge: { on_conflict: 'block' },
      },
    },
    {
      def: { type: 'fan_out', lanes: [{ id: 'a', workflow: 'w', model: 'mystery' }] },
      defaults: { agent: 'claude' },
      warnings: [{ path: 'lanes[0].model', code: 'unknown_model' }],
    },
  ],
  invalid: [
    { def: { type: 'fan_out' }, errors: [{ path: '', code: 'fan_out_lanes' }] },
    {
      def: {
        type: 'fan_out',
        lanes: [{ id: 'a', workflow: 'w' }],
        lane: { id: 'b', workflow: 'w', for_each: 'x' },
      },
      errors: [{ path: 'lane', code: 'fan_out_lanes' }],
    },
    { def: { type: 'fan_out', lanes: [] }, errors: [{ path: 'lanes', code: 'empty' }] },
    {
      def: { type: 'fan_out', lanes: [{ id: 'a' }] },
      errors: [{ path: 'lanes[0]', code: 'lane_source' }],
    },
    {
      def: {
        type: 'fan_out',
        lanes: [{ id: 'a', workflow: 'w', steps: [{ id: 's', type: 'command', run: 'x' }] }],
      },
      errors: [{ path: 'lanes[0].steps', code: 'lane_source' }],
    },
    {
      def: { type: 'fan_out', lanes: [{ workflow: 'w' }] },
      errors: [{ path: 'lanes[0].id', code: 'required' }],
    },
    {
      def: {
        type: 'fan_out',
        lanes: [
          { id: 'a', workflow: 'w' },
          { id: 'a', workflow: 'v' },
        ],
      },
      errors: [{ path: 'lanes[1].id', code: 'duplicate_lane_id' }],
    },
    {
      def: { type: 'fan_out', lanes: [{ id: 'a', workflow: 'w', agent: 'nobody' }] },
      errors: [{ path: 'lanes[0].agent', code: 'unknown_agent' }],
    },
    {
      def: { type: 'fan_out', lanes: [{ id: 'a', workflow: 'w', bogus: 1 }] },
      errors: [{ path: 'lanes[0].bogus', code: 'unknown_key' }],
    },
    {
      def: { type: 'fan_out', lane: { id: 'pkg', workflow: 'w' } },
      errors: [{ path: 'lane.for_each', code: 'required' }],
    },
    {
      def: { type: 'fan_out', lanes: [{ id: 'a', workflow: 'w', if: '{{if}}' }] },
      errors: [{ path: 'lanes[0].if', code: 'template_syntax' }],
    },
    {
      def: {
        type: 'fan_out',
        lanes: [{ id: 'a', workflow: 'w' }],
        merge: { on_conflict: 'agent' },
      },
      errors: [{ path: 'merge', code: 'merge_agent_required' }],
    },
    {
      def: { type: 'fan_out', lanes: [{ id: 'a', workflow: 'w' }], merge: { agent: resolver } },
      errors: [{ path: 'merge.agent', code: 'merge_agent_not_allowed' }],
    },
    {
      def: {
        type: 'fan_out',
        lanes: [{ id: 'a', workflow: 'w' }],
        merge: { on_conflict: 'theirs' },
      },
      errors: [{ path: 'merge.on_conflict', code: 'invalid_value' }],
    },
    {
      def: {
        type: 'fan_out',
        lanes: [{ id: 'a', workflow: 'w' }],
        merge: { on_conflict: 'agent', agent: { prompt: 'x' } },
      },
      errors: [{ path: 'merge.agent.id', code: 'required' }],
    },
    {
      def: {
        type: 'fan_out',
        lanes: [{ id: 'a', workflow: 'w' }],
        merge: { on_conflict: 'agent', agent: { id: 'r', type: 'command', run: 'x' } },
      },
      errors: [{ path: 'merge.agent.type', code: 'not_allowed_here' }],
    },
    {
      def: {
        type: 'fan_out',
        lanes: [{ id: 'a', workflow: 'w' }],
        merge: { on_conflict: 'agent', agent: { ...resolver, retry_backoff: '10s' } },
      },
      errors: [{ path: 'merge.agent.retry_backoff', code: 'resolver_backoff' }],
    },
    {
      def: {
        type: 'fan_out',
        lanes: [{ id: 'a', workflow: 'w' }],
        merge: { on_conflict: 'agent', agent: resolver },
      },
      defaults: { on_input: 'require' },
      errors: [{ path: '$.defaults.on_input', code: 'input_required_here' }],
    },
    {
      def: {
        type: 'fan_out',
        lanes: [{ id: 'a', steps: [{ type: 'break', if: 'true' }] }],
      },
      errors: [{ path: 'lanes[0].steps[0].type', code: 'not_allowed_here' }],
    },
    {
      def: {
        type: 'fan_out',
        lanes: [
          { id: 'a', workflow: 'w' },
          { id: 'b', workflow: 'w' },
          { id: 'c', workflow: 'w' },
        ],
      },
      limits: { fan_out_max_tasks: 2 },
      errors: [{ path: 'lanes', code: 'fan_out_max_tasks' }],
    },
    {
      def: { type: 'fan_out', lanes: [{ id: 'a', workflow: 'w' }] },
      context: 'parallel',
      errors: [{ path: 'type', code: 'not_allowed_here' }],
    },
  ],
});
