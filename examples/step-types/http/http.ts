/**
 * An example step type from outside the kernel: `http` calls a URL and fails on an answer outside
 * 2xx — a deploy hook, a chat webhook, a health check that must already pass. Like
 * `wait_for_http` it shows the whole contract (schema, rows, contexts, templates, a load-time
 * rule, `run` through the step context only), and adds what a step that talks to the outside
 * needs: templated URL and body, the attempt's timeout, and a transcript of what was sent and
 * answered. Load it with `plugins: [<path to this folder>]` in config.yaml; docs/adding-a-step-type.md
 * walks through it.
 */
import { z } from 'zod';
import {
  type CommonStepKey,
  commonShape,
  defineStepType,
  requiredTemplateSchema,
  type StepFinding,
  templateFailure,
  templateSchema,
} from '../../../kernel/plugin/index.js';

const COMMON: readonly CommonStepKey[] = ['if', 'max_retries', 'retry_backoff', 'timeout'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export const HttpStepSchema = z.strictObject({
  type: z.literal('http'),
  ...commonShape(COMMON),
  url: requiredTemplateSchema,
  method: z.enum(METHODS).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  body: templateSchema.optional(),
});

export type HttpStep = z.infer<typeof HttpStepSchema>;

/** How much of an answer's body the transcript and the failure message keep. */
const BODY_PREVIEW = 2000;

export const httpStep = defineStepType<HttpStep>({
  meta: {
    type: 'http',
    schema: HttpStepSchema,
    common: COMMON,
    rows: [
      { key: 'url', control: 'template', required: true, description: 'URL to call.' },
      {
        key: 'method',
        control: 'enum',
        values: [...METHODS],
        description: 'HTTP method.',
        default: 'GET',
      },
      { key: 'headers', control: 'map', description: 'Request headers.' },
      { key: 'body', control: 'template', description: 'Request body (not with GET or HEAD).' },
    ],
    docs: {
      summary: 'Call a URL; fail unless it answers 2xx.',
      url: 'examples/step-types/http/http.ts#http',
    },
    // Stable reasons a workflow's readers (and block_reason) can branch on.
    reasons: ['http_status', 'http_error', 'timeout', 'template_error'],
    contexts: ['body', 'parallel', 'loop'],
    templates: ['url', 'body', 'if'],
  },
  validate(def) {
    const out: StepFinding[] = [];
    if (!def.url.includes('{{') && !/^https?:\/\/\S+$/.test(def.url))
      out.push({
        path: ['url'],
        code: 'invalid_url',
        message: `url ${def.url} is not an http(s) URL`,
      });
    if (def.body !== undefined && ['GET', 'HEAD'].includes(def.method ?? 'GET'))
      out.push({
        path: ['body'],
        code: 'body_not_allowed',
        message: `a ${def.method ?? 'GET'} request carries no body; set method: POST (or PUT, PATCH)`,
      });
    return out;
  },
  async run(ctx, def) {
    const method = def.method ?? 'GET';
    let url: string;
    let body: string | undefined;
    try {
      url = ctx.render(def.url).text.trim();
      body = def.body === undefined ? undefined : ctx.render(def.body).text;
    } catch (err) {
      return templateFailure(err);
    }
    const headers: Record<string, string> = def.headers ?? {};
    ctx.annotate('http_request', { method, url, headers: Object.keys(headers) });
    // The step's timeout bounds the call; cancel aborts it at once.
    const ac = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, ctx.timeoutMs('command'));
    const onCancel = () => ac.abort();
    ctx.signal.addEventListener('abort', onCancel, { once: true });
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, { method, headers, body, signal: ac.signal });
      text = (await res.text()).slice(0, BODY_PREVIEW);
    } catch (err) {
      if (ctx.signal.aborted) return { kind: 'cancelled' };
      if (timedOut)
        return {
          kind: 'failed',
          reason: 'timeout',
          message: `${method} ${url} did not answer in time`,
        };
      return {
        kind: 'failed',
        reason: 'http_error',
        message: `${method} ${url}: ${(err as Error).message}`,
      };
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onCancel);
    }
    ctx.annotate('http_response', { status: res.status, body: text });
    ctx.live('command.output', { stream: 'stdout', text: `${method} ${url} → ${res.status}` });
    if (res.status < 200 || res.status > 299)
      return {
        kind: 'failed',
        reason: 'http_status',
        message: `${method} ${url} answered ${res.status}${text ? `: ${text.split('\n')[0]}` : ''}`,
      };
    return { kind: 'succeeded', summary: `${method} ${url} → ${res.status}` };
  },
});
