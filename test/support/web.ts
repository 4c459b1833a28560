/**
 * The web board in a real browser (issue 23 point 8): Debian's Chromium driven by playwright-core,
 * one browser per test file (a fresh profile directory, the flags that keep it off the network),
 * against the real kernel listening on a loopback port and serving the page `npm run build` wrote
 * to dist/ui. Without a browser a developer's run skips loudly; under CI=true it fails instead.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { onTestFinished } from 'vitest';
import { buildTestApp, type TestApp, type TestAppOptions } from './app.js';

export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';
export const UI_DIR = fileURLToPath(new URL('../../dist/ui/', import.meta.url));

/** The flags the tests run Chromium with: headless, and nothing that reaches out to the network. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Why the browser tests cannot run here, or null. Under CI=true a missing browser or page is an
 * error (`.ci/run` installs Chromium and `npm test` builds first), never a quiet skip.
 */
export function browserSkipReason(): string | null {
  const missing = !existsSync(CHROMIUM)
    ? `no browser at ${CHROMIUM} (apt-get install chromium, or set SVC_CHROMIUM)`
    : !existsSync(join(UI_DIR, 'index.html'))
      ? 'dist/ui is not built (npm run build)'
      : null;
  if (missing === null) return null;
  if (process.env.CI === 'true') throw new Error(`web board browser tests cannot run: ${missing}`);
  process.stderr.write(
    `\n!!! SKIPPING the web board browser tests: ${missing}. They are required in CI. !!!\n\n`,
  );
  return missing;
}

export interface Browser {
  context: BrowserContext;
  page(): Promise<Page>;
  close(): Promise<void>;
}

/** One Chromium with a fresh profile, for a whole test file; each case opens its own pages. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1440, height: 900 },
    timezoneId: 'UTC',
    locale: 'en-US',
  });
  return {
    context,
    page: async () => {
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      return page;
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface WebApp {
  t: TestApp;
  base: string;
}

/** The real kernel, listening on a loopback port, serving the built page. */
export async function webApp(opts: TestAppOptions = {}): Promise<WebApp> {
  const t = await buildTestApp({
    ...opts,
    keepOpen: true,
    kernel: { uiRoots: [UI_DIR], ...opts.kernel },
  });
  onTestFinished(async () => {
    const started = Date.now();
    await t.close();
    if (process.env.SVC_WEB_DEBUG)
      process.stderr.write(`webApp closed in ${Date.now() - started} ms\n`);
  }, 120_000);
  await t.kernel.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.kernel.app.server.address() as AddressInfo;
  return { t, base: `http://127.0.0.1:${port}` };
}

/** A sign-in link as `svc ui` makes it (the same route), opened in `page`; resolves on the board. */
export async function signIn(page: Page, app: WebApp): Promise<void> {
  const res = await app.t.api('POST', '/v1/ui/codes');
  const { code } = res.json() as { code: string };
  await page.goto(`${app.base}/ui/#code=${code}`);
  await page.getByTestId('board').waitFor();
}

/** Screenshots for docs/web.md, written only when asked (`SVC_UPDATE_SCREENSHOTS=1`). */
export async function docScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.SVC_UPDATE_SCREENSHOTS !== '1') return;
  const dir = fileURLToPath(new URL('../../docs/images/', import.meta.url));
  await page.screenshot({ path: join(dir, name) });
}
