/**
 * The last resort (decision 181). Every path that can fail is meant to turn its fault into an
 * outcome (a blocked task, a 4xx/5xx envelope, a logged line), and a test fails if this guard is
 * ever reached. Should one be missed anyway, an unhandled rejection or an uncaught exception is
 * logged at `fatal` with this message and the daemon keeps serving: its state lives in SQLite,
 * written in transactions, and exiting would only turn one missed fault into a crash loop.
 */
import type { Logger } from 'pino';

export const LAST_RESORT_MESSAGE = 'last-resort guard reached: an error escaped every handler';

/** Installs the guard; returns how to remove it. */
export function installLastResort(logger: Logger): () => void {
  // Also on stderr: the log may be on the very disk that is full.
  const say = (kind: string, err: unknown) => {
    logger.fatal({ err, kind }, LAST_RESORT_MESSAGE);
    try {
      process.stderr.write(`${LAST_RESORT_MESSAGE} (${kind}): ${(err as Error)?.stack ?? err}\n`);
    } catch {}
  };
  const onRejection = (reason: unknown) => say('unhandled_rejection', reason);
  const onException = (err: Error) => say('uncaught_exception', err);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
