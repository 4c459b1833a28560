import { z } from 'zod';
import type {
  AgentInputProtocol,
  AnswerIssue,
  InputAnswer,
  InputRequest,
  PendingInput,
} from '../../../kernel/plugin/index.js';
import { isRecord } from '../../../kernel/plugin/index.js';
import type { ClaudeRequestPayload } from './parse.js';

/** SPEC §4.4 answer body; unknown keys are dropped, the route owns body strictness. */
const AnswerBodySchema = z.object({
  answers: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional(),
  allow: z.boolean().optional(),
});

export const DENY_PERMISSION_MESSAGE = 'permission denied: no user is available to approve this';
export const DENY_QUESTION_RESPONSE =
  'No user is available to answer; decide with your best judgment.';

function values(v: string | string[]): string[] {
  return Array.isArray(v) ? v : [v];
}

export function validateAnswer(
  pending: PendingInput,
  body: unknown,
): { ok: true; answer: InputAnswer } | { ok: false; issues: AnswerIssue[] } {
  const parsed = AnswerBodySchema.safeParse(body);
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((i) => ({
        path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
        code: 'invalid_type',
        message: i.message,
      })),
    };
  }
  const { answers, allow } = parsed.data;
  const issues: AnswerIssue[] = [];

  if (pending.kind === 'permission') {
    if (answers !== undefined) {
      issues.push({
        path: ['answers'],
        code: 'not_allowed',
        message: 'a permission takes allow, not answers',
      });
    }
    if (allow === undefined) {
      issues.push({
        path: ['allow'],
        code: 'required',
        message: 'allow is required for a permission',
      });
    }
    return issues.length > 0 ? { ok: false, issues } : { ok: true, answer: { allow } };
  }

  if (allow !== undefined) {
    issues.push({
      path: ['allow'],
      code: 'not_allowed',
      message: 'a question takes answers, not allow',
    });
  }
  const questions = pending.questions ?? [];
  if (answers === undefined) {
    issues.push({
      path: ['answers'],
      code: 'required',
      message: 'answers is required for a question',
    });
    return { ok: false, issues };
  }
  const known = new Map(questions.map((q) => [q.text, q]));
  for (const key of Object.keys(answers)) {
    if (!known.has(key)) {
      issues.push({
        path: ['answers', key],
        code: 'unknown_question',
        message: 'no such question',
      });
    }
  }
  for (const q of questions) {
    const v = answers[q.text];
    if (v === undefined) {
      issues.push({
        path: ['answers', q.text],
        code: 'required',
        message: 'question not answered',
      });
      continue;
    }
    const vs = values(v);
    if (vs.length === 0 || vs.some((x) => x.trim() === '')) {
      issues.push({ path: ['answers', q.text], code: 'empty_value', message: 'empty answer' });
    } else if (vs.length > 1 && q.multi_select !== true) {
      issues.push({
        path: ['answers', q.text],
        code: 'too_many_values',
        message: 'one value unless the question is multi-select',
      });
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, answer: { answers } };
}

function payloadOf(request: InputRequest): ClaudeRequestPayload {
  const p = request.payload;
  if (isRecord(p) && typeof p.tool_name === 'string') {
    return { tool_name: p.tool_name, input: isRecord(p.input) ? p.input : {} };
  }
  return { tool_name: '', input: {} };
}

function controlResponse(requestId: string, decision: Record<string, unknown>): string {
  return `${JSON.stringify({
    type: 'control_response',
    response: { subtype: 'success', request_id: requestId, response: decision },
  })}\n`;
}

/**
 * Answers go back as `updatedInput`: the tool's original input plus `answers` (question text →
 * label). Multi-select values are comma-joined, the encoding the tool schema declares (decision 112).
 */
export function answer(request: InputRequest, reply: InputAnswer): string {
  const { input } = payloadOf(request);
  if (request.pending.kind === 'permission') {
    return controlResponse(
      request.request_id,
      reply.allow === true
        ? { behavior: 'allow', updatedInput: input }
        : { behavior: 'deny', message: 'denied by the user' },
    );
  }
  const answers: Record<string, string> = {};
  for (const [q, v] of Object.entries(reply.answers ?? {})) answers[q] = values(v).join(',');
  return controlResponse(request.request_id, {
    behavior: 'allow',
    updatedInput: { ...input, answers },
  });
}

/**
 * `on_input: deny`: a permission is refused; a question gets a free-text response telling the
 * model nobody will answer, so it carries on instead of failing the tool call.
 */
export function deny(request: InputRequest, message?: string): string {
  const { input } = payloadOf(request);
  if (request.pending.kind === 'permission') {
    return controlResponse(request.request_id, {
      behavior: 'deny',
      message: message ?? DENY_PERMISSION_MESSAGE,
    });
  }
  return controlResponse(request.request_id, {
    behavior: 'allow',
    updatedInput: { ...input, answers: {}, response: message ?? DENY_QUESTION_RESPONSE },
  });
}

export const inputProtocol: AgentInputProtocol = { validateAnswer, answer, deny };
