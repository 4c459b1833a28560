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

  write(line: string): void {
    const buf = Buffer.from(line);
    if (this.size > 0 && this.size + buf.length > this.maxBytes) this.rotate();
    writeSync(this.fd, buf);
    this.size += buf.length;
  }

  private rotate(): void {
    closeSync(this.fd);
    for (let i = this.keep - 1; i >= 1; i--) {
      const from = `${this.path}.${i}`;
      if (existsSync(from)) renameSync(from, `${this.path}.${i + 1}`);
    }
    renameSync(this.path, `${this.path}.1`);
    this.fd = openSync(this.path, 'a', 0o600);
    this.size = 0;
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
