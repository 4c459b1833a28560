/**
 * log: structured JSON logs to {data_dir}/daemon.log at `log_level`, size-capped with rotation
 * (daemon.log.1 … .3). Secrets never reach it: requests are logged by method, route and status
 * only (no headers), and known secret paths are redacted as a second line of defence.
 */
import { closeSync, existsSync, fstatSync, openSync, renameSync, writeSync } from 'node:fs';
import { type Logger, pino } from 'pino';

export type { Logger } from 'pino';

const REDACT = [
  'token',
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'request.headers.authorization',
  '*.token',
  '*.authorization',
];

/** An append-only file stream that rotates when it passes `maxBytes`, keeping `keep` old files. */
export class RotatingFile {
  private fd: number;
  private size: number;

  constructor(
    readonly path: string,
    private readonly maxBytes = 10 * 1024 * 1024,
    private readonly keep = 3,
  ) {
    this.fd = openSync(path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  /** Lines the file system refused (a full disk); counted, never thrown, reported once it accepts again. */
  private dropped = 0;

  /**
   * Appends a line. A log write never throws: loggers are called from every code path, and a full
   * disk must not turn each of them into a failure (issue 11, docs/reliability.md).
   */
  write(line: string): void {
    try {
      if (this.dropped > 0) {
        const note = `${JSON.stringify({ level: 40, time: Date.now(), msg: `${this.dropped} log lines were dropped: the log file could not be written` })}\n`;
        this.append(Buffer.from(note));
        this.dropped = 0;
      }
      this.append(Buffer.from(line));
    } catch {
      this.dropped++;
    }
  }

  private append(buf: Buffer): void {
    if (this.size > 0 && this.size + buf.length > this.maxBytes) this.rotate();
    writeSync(this.fd, buf);
    this.size += buf.length;
  }

  // Whatever fails half-way (a rename, the new file on a full disk), the file is reopened so the
  // next line can try again; a later rotation starts over.
  private rotate(): void {
    try {
      closeSync(this.fd);
    } catch {}
    try {
      for (let i = this.keep - 1; i >= 1; i--) {
        const from = `${this.path}.${i}`;
        if (existsSync(from)) renameSync(from, `${this.path}.${i + 1}`);
      }
      renameSync(this.path, `${this.path}.1`);
    } finally {
      this.fd = openSync(this.path, 'a', 0o600);
      this.size = fstatSync(this.fd).size;
    }
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {}
  }
}

export interface LoggerHandle {
  logger: Logger;
  close(): void;
}

export function createFileLogger(path: string, level: string, maxBytes?: number): LoggerHandle {
  const file = new RotatingFile(path, maxBytes);
  const logger = pino(
    { level, base: { pid: process.pid }, redact: { paths: REDACT, censor: '[redacted]' } },
    { write: (s: string) => file.write(s) },
  );
  return { logger, close: () => file.close() };
}

/** A logger that drops everything; for tests that do not look at logs and for CLI-side code. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
