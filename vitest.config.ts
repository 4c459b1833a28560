import { defineConfig } from 'vitest/config';

// Tests run against the TypeScript sources; only e2e tests use the built dist/ (npm test builds first).
export default defineConfig({
  test: {
    include: ['**/*.test.ts', '**/*.test.tsx'],
    exclude: ['**/node_modules/**', 'dist/**'],
    setupFiles: ['test/support/setup-env.ts'],
    pool: 'forks',
    poolOptions: { forks: { minForks: 1, maxForks: 3 } },
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
