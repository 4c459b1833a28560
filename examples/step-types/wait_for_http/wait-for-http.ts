/**
 * An example step type from outside the kernel: `wait_for_http` polls a URL until it answers the
 * expected status (a service the previous step started, a preview deployment). It shows the whole
 * contract: a strict zod schema built from the shared key helpers, schema-route rows, where the
 * type may stand, which keys are templates, a load-time rule (`validate`) and a `run` that only
 * uses the step context. Load it with `plugins: [<path to this folder>]` in config.yaml.
 */
import { z } from 'zod';
import {
  type CommonStepKey,
  commonShape,
  defineStepType,
  requiredTemplateSchema,
  type StepFinding,
  templateFailure,
  workflowDurationMs,
} from '../../../kernel/plugin/index.js';

const COMMON: readonly CommonStepKey[] = ['if', 'max_retries', 'retry_backoff', 'timeout'];

export const WaitForHttpSchema = z.strictObject({
  type: z.literal('wait_for_http'),
  ...commonShape(COMMON),
  url: requiredTemplateSchema,
  status: z.number().int().min(100).max(599).optional(),
  interval: z.string().optional(),
});

export type WaitForHttp = z.infer<typeof WaitForHttpSchema>;

export const waitForHttpStep = defineStepType<WaitForHttp>({
  meta: {
    type: 'wait_for_http',
    schema: WaitForHttpSchema,
    common: COMMON,
    rows: [
      { key: 'url', control: 'template', required: true, description: 'URL to poll.' },
      { key: 'status', control: 'int', description: 'Status that ends the wait.', default: 200 },
      { key: 'interval', control: 'duration', description: 'Time between polls.', default: '2s' },
    ],
    docs: {
      summary: 'Poll a URL until it answers with the expected status.',
      url: 'examples/step-types/wait_for_http/wait-for-http.ts#wait_for_http',
    },
    reasons: ['timeout', 'template_error'],
    contexts: ['body', 'parallel', 'loop'],
    templates: ['url', 'if'],
  },
  validate(def) {
    const out: StepFinding[] = [];
    // A URL without template actions can be judged now rather than at the first poll.
    if (!def.url.includes('{{') && !/^https?:\/\/[^\s]+$/.test(def.url)) {
      out.push({
        path: ['url'],
        code: 'invalid_url',
        message: `url ${def.url} is not an http(s) URL`,
      });
    }
    if (def.interval !== undefined && (workflowDurationMs(def.interval) ?? 0) <= 0) {
      out.push({
        path: ['interval'],
        code: 'invalid_duration',
        message: 'interval must be a positive duration such as 2s',
      });
    }
    return out;
  },
  async run(ctx, def) {
    let url: string;
    try {
      url = ctx.render(def.url).text.trim();
    } catch (err) {
      return templateFailure(err);
    }
    const want = def.status ?? 200;
    const every = workflowDurationMs(def.interval ?? '2s') ?? 2000;
    const deadline = Date.now() + ctx.timeoutMs('command');
    while (!ctx.signal.aborted && Date.now() < deadline) {
      const got = await fetch(url, { signal: ctx.signal }).then(
        (r) => r.status,
        () => 0,
      );
      if (got === want) return { kind: 'succeeded', summary: `${url} answered ${got}` };
      await new Promise((r) => setTimeout(r, every));
    }
    if (ctx.signal.aborted) return { kind: 'cancelled' };
    return { kind: 'failed', reason: 'timeout', message: `${url} did not answer ${want} in time` };
  },
});
