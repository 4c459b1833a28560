#!/usr/bin/env node
import { main } from '../cli/index.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`svc: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exitCode = 1;
  },
);
