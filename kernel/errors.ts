/**
 * errors: the one table of error codes (SPEC §7, STYLE "Errors live in one table"). A code is born
 * here and nowhere else; services and routes throw `new SvcError(code, message, details)` and only
 * the HTTP error handler writes the envelope `{error:{code,message,details?}}`. A unit test keeps
 * this table, SPEC §7's codes and docs/errors.md in agreement both ways.
 * Identity is the `svcError` brand plus `code`, not `instanceof`: plugins may bundle their own copy.
 */

export interface ErrorSpec {
  status: number;
  /** When a code is ours rather than the spec's, the decision that designed it. */
  summary: string;
}

export const errorCodes = {
  validation_failed: {
    status: 400,
    summary: 'A field or body is invalid; the message names the field and the limit.',
  },
  invalid_json: { status: 400, summary: 'The body is not exactly one JSON document.' },
  agent_cannot_resume: {
    status: 400,
    summary: 'The adapter cannot resume its own session, so it cannot hold a chat.',
  },
  unauthorized: { status: 401, summary: 'Missing or wrong bearer token.' },
  host_not_allowed: {
    status: 403,
    summary: 'The Host header is not a loopback name (DNS-rebinding defence, decision 004).',
  },
  not_found: { status: 404, summary: 'No such route or resource (decision 003).' },
  method_not_allowed: {
    status: 405,
    summary: 'The route exists but not with this method; Allow lists the methods.',
  },
  invalid_state: {
    status: 409,
    summary: 'An action the current state does not allow, and every 409 without a code of its own.',
  },
  chat_cap_reached: {
    status: 409,
    summary: 'max_parallel_chats chats already hold a live process.',
  },
  repo_operation_in_progress: {
    status: 409,
    summary: 'Hand-off refused: the worktree is mid git operation.',
  },
  task_locked_by_chat: {
    status: 409,
    summary: 'A task action other than cancel while a linked chat is open.',
  },
  task_has_no_worktree: {
    status: 409,
    summary: 'A chat cannot open on, or read skills of, a task without a worktree.',
  },
  chat_linked_to_task: {
    status: 409,
    summary: 'Archive, hand-off or branch delete of a chat linked to a task.',
  },
  malformed_request: {
    status: 400,
    summary: 'The HTTP request itself could not be parsed; answered before routing (decision 153).',
  },
  request_timeout: {
    status: 408,
    summary: 'The request did not arrive within the server timeouts (decision 153).',
  },
  payload_too_large: {
    status: 413,
    summary: 'The body is over the route limit; the message names the limit.',
  },
  unsupported_media_type: { status: 415, summary: 'A non-empty body labelled clearly not JSON.' },
  headers_too_large: {
    status: 431,
    summary: 'The request line and headers are over the HTTP parser limit (decision 153).',
  },
  internal: {
    status: 500,
    summary: 'An unexpected fault; the message never carries internals (decision 003).',
  },
  unavailable: { status: 503, summary: 'The daemon is shutting down and takes no new work.' },
  disk_full: {
    status: 507,
    summary:
      'The data disk (or a backup destination) has no room; nothing was written (decision 180).',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof errorCodes;

/**
 * Values callers branch on. Flat on purpose: clients match on keys, not on nested shapes. The one
 * exception is a list of findings (`details.errors` on a workflow or trigger write, SPEC §7).
 */
export type ErrorDetails = Record<
  string,
  string | number | boolean | null | number[] | string[] | ReadonlyArray<object>
>;

export class SvcError extends Error {
  readonly svcError = true as const;
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.name = 'SvcError';
    this.code = code;
    this.details = details && Object.keys(details).length > 0 ? details : undefined;
  }

  get status(): number {
    return errorCodes[this.code].status;
  }
}

/** The wire envelope of SPEC §7, written by the HTTP error handler and the MCP tool results alike. */
export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
}

export function envelopeOf(err: SvcError): ErrorEnvelope {
  const body: ErrorEnvelope = { error: { code: err.code, message: err.message } };
  if (err.details) body.error.details = err.details;
  return body;
}

export function isSvcError(e: unknown): e is SvcError {
  return (
    typeof e === 'object' &&
    e !== null &&
    (e as { svcError?: unknown }).svcError === true &&
    typeof (e as { code?: unknown }).code === 'string' &&
    (e as { code: string }).code in errorCodes
  );
}

export function notFound(message: string): SvcError {
  return new SvcError('not_found', message);
}

export function invalidState(action: string, state: string, extra?: ErrorDetails): SvcError {
  return new SvcError('invalid_state', `cannot ${action} a task that is ${state}`, {
    state,
    ...extra,
  });
}

export function validationFailed(message: string, details?: ErrorDetails): SvcError {
  return new SvcError('validation_failed', message, details);
}
