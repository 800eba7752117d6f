// The two test tiers, as globs from the repository root: vitest.config.ts makes a project of each, and
// test/fast/meta/test-layout.test.ts checks that every test file is in exactly one (test/README.md says which).
//   fast         in-process only, no build needed: pure modules, SQLite/DuckDB files in temp folders, the
//                simulator in the test's own process, workflow logic on the time-skipping test server with mocked
//                activities. `npm run test:fast`, under 2 minutes on 2 cores.
//   integration  the real parts: Temporal dev and production servers, Postgres, spawned `scrape-etl` commands and
//                workers (dist/), chromium, the soak. `npm test` runs it after the fast tier passed.

/** The destination adapter suite (test/destinations/): the engines that need no server run in the fast tier. */
export const FAST_DESTINATIONS = ['sqlite', 'duckdb'] as const;
export const SERVER_DESTINATIONS = ['postgres'] as const;

export const FAST_TIER: readonly string[] = [
  'test/fast/**/*.test.ts',
  ...FAST_DESTINATIONS.map((d) => `test/destinations/${d}.test.ts`),
];
export const INTEGRATION_TIER: readonly string[] = [
  'test/integration/**/*.test.ts',
  ...SERVER_DESTINATIONS.map((d) => `test/destinations/${d}.test.ts`),
];

/**
 * Integration files that run for minutes, started first and in this order. vitest orders files it has no timings
 * for (every clean clone, so every CI run) by size, which put the short soak file last: it then ran alone while the
 * other worker had nothing left, for most of its time. Started first, the rest of the tier runs beside it.
 * test/fast/meta/test-layout.test.ts fails when a name here no longer names an integration file.
 */
export const LONG_FIRST: readonly string[] = [
  'test/integration/soak/soak-short.test.ts',
  'test/integration/cli/cli-up.test.ts',
  'test/integration/db/db-dbt-build.test.ts',
];
