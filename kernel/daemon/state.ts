/**
 * Facts about the running daemon that routes report (`/v1/info`, `/v1/health`) and the one way to
 * ask it to stop. Other services add their own `/v1/info` sections with `contributeInfo`, so the
 * info route never needs to know every service.
 */
import { VERSION } from '../version.js';

/** A section's value, computed per request; a promise is awaited (sections are gathered in parallel). */
export type InfoSection = () => unknown;

export class DaemonState {
  readonly version = VERSION;
  readonly pid = process.pid;
  port = 0;
  host = '127.0.0.1';
  stopping = false;
  private readonly sections = new Map<string, InfoSection>();

  constructor(
    readonly token: string,
    readonly startedAtMs: number,
    private readonly onStop: () => void,
  ) {}

  contributeInfo(name: string, section: InfoSection): void {
    this.sections.set(name, section);
  }

  async infoSections(): Promise<Record<string, unknown>> {
    const entries = await Promise.all(
      [...this.sections].map(async ([name, section]) => [name, await section()] as const),
    );
    return Object.fromEntries(entries);
  }

  requestStop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.onStop();
  }

  get url(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${host}:${this.port}`;
  }
}
