/**
 * A green suite must not hide a skipped proof (issue 17 hold 9). A suite that needs something the
 * machine may lack (a real agent CLI, the build, tmux, permission to mount) skips with its reason
 * on a developer's machine; under `CI=true` the same absence is a failing test instead, so the run
 * goes red rather than silently proving less.
 */
import { it } from 'vitest';

export const IN_CI = process.env.CI === 'true';

/**
 * For `describe.skipIf(...)`: true when the suite must be skipped because `missing` says what is
 * absent. Under CI=true it also registers a failing test naming the absence.
 */
export function skipUnlessCi(missing: string | null | undefined | false, suite: string): boolean {
  if (!missing) return false;
  if (IN_CI) {
    it(`${suite}: runs under CI=true`, () => {
      throw new Error(
        `${suite} cannot run: ${missing}. Under CI=true a missing binary or build fails the run instead of skipping it.`,
      );
    });
  }
  return true;
}

/** Inside a test: skip with the reason on a developer's machine, fail under CI=true. */
export function requireOrSkip(
  ctx: { skip: (note?: string) => never },
  missing: string | null | undefined | false,
): void {
  if (!missing) return;
  if (IN_CI) throw new Error(`${missing} (under CI=true this fails instead of skipping)`);
  ctx.skip(missing);
}
