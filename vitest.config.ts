import { defineConfig } from 'vitest/config';

// Integration tests run real servers (Temporal dev server, Postgres, the simulator), so timeouts are generous
// and files run in separate processes so one file's servers and signals never reach another's.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
    reporters: ['default'],
  },
});
