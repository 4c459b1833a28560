/**
 * Exit codes a script can branch on (docs/cli.md). API failures map from the error envelope's
 * code, so `svc task approve 7 || case $? in 5) …` reads the same as branching on the HTTP body.
 */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  daemon_unreachable: 3,
  not_found: 4,
  conflict: 5,
  invalid: 6,
  problems: 7,
} as const;

export function exitCodeForError(code: string, status: number): number {
  if (code === 'not_found') return EXIT.not_found;
  if (status === 409) return EXIT.conflict;
  if (status === 400 || status === 413 || status === 415) return EXIT.invalid;
  return EXIT.failure;
}
