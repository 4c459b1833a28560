/**
 * Input requests (SPEC §3.2 awaiting_input): an agent asked a question and its process waits. The
 * task moves to awaiting_input (its slot held), the wait is bounded by the input timeout on the
 * injected clock, and `POST /v1/tasks/{id}/answer` resolves it once the answer validates.
 */
import type { Clock } from '../clock/index.js';
import { SvcError } from '../errors.js';
import type { InputOutcome, InputWait } from '../plugin/index.js';
import type { TaskRow } from '../store/index.js';
import type { TaskStates } from './state.js';

interface Waiting {
  wait: InputWait;
  resolve(answer: unknown): void;
}

export class InputBroker {
  private readonly waiting = new Map<number, Waiting>();

  constructor(
    private readonly states: TaskStates,
    private readonly clock: Clock,
  ) {}

  isWaiting(taskId: number): boolean {
    return this.waiting.has(taskId);
  }

  wait(
    taskId: number,
    wait: InputWait,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<InputOutcome> {
    const moved = this.states.apply(
      taskId,
      'request_input',
      'running',
      { pending_input: JSON.stringify(wait.pending) },
      { kind: wait.kind, summary: wait.summary },
    );
    if (!moved || signal.aborted) return Promise.resolve({ kind: 'cancelled', waited_ms: 0 });
    const start = this.clock.now();
    return new Promise<InputOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: 'answered' | 'timeout' | 'cancelled', answer?: unknown) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        signal.removeEventListener('abort', onAbort);
        this.waiting.delete(taskId);
        const waited_ms = this.clock.now() - start;
        if (outcome !== 'cancelled') {
          // Runs in a timer or an answer: a refused write (a full disk) must neither escape as an
          // uncaught exception nor leave the agent waiting forever. The attempt goes on, and the
          // runner's next write meets the same fault and settles the task (decision 180).
          try {
            this.states.apply(
              taskId,
              outcome === 'answered' ? 'answer' : 'input_timeout',
              'awaiting_input',
            );
          } catch {}
        }
        resolve(
          outcome === 'answered'
            ? { kind: 'answered', answer, waited_ms }
            : { kind: outcome, waited_ms },
        );
      };
      const timer = this.clock.setTimer(timeoutMs, () => finish('timeout'));
      const onAbort = () => finish('cancelled');
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(taskId, { wait, resolve: (answer) => finish('answered', answer) });
    });
  }

  /** Validates and delivers a human's answer; refuses when nothing waits or the body does not fit. */
  answer(task: TaskRow, body: unknown): void {
    const w = this.waiting.get(task.id);
    if (!w)
      throw new SvcError('invalid_state', 'no agent is waiting for an answer on this task', {
        state: task.state,
      });
    const v = w.wait.validate(body);
    if (!v.ok)
      throw new SvcError('validation_failed', v.message, v.field ? { field: v.field } : undefined);
    w.resolve(v.answer);
  }
}
