import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { LongFirstSequencer } from './test/support/sequencer.js';
import { FAST_TIER, INTEGRATION_TIER } from './test/tiers.js';

// Two projects, one per tier (test/tiers.ts, test/README.md): `npm test` runs `fast` first and `integration` only
// when it passed; `npm run test:fast` is the first alone. Both keep the settings below.
// Integration tests run real servers (Temporal dev server, Postgres, the simulator), so timeouts are generous
// and files run in separate processes so one file's servers and signals never reach another's; the fast tier's
// workflow tests load Temporal's native runtime too, so they get processes of their own as well.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
    reporters: ['default'],
    sequence: { sequencer: LongFirstSequencer },
    // One secret key (lib/secret-key.ts) for the test processes and every command and worker they spawn, as for a
    // deployment whose workers have a copy of the commands' key file: a test's in-process starter and a spawned
    // worker with its own data folder must agree on it. The tests of the key itself set their own.
    env: { SCRAPE_ETL_KEY_FILE: path.join(os.tmpdir(), `scrape-etl-test-secret-${os.userInfo().uid}.key`) },
    projects: [
      { extends: true, test: { name: 'fast', include: [...FAST_TIER], sequence: { groupOrder: 0 } } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: [...INTEGRATION_TIER],
          // Three files at a time on 2 cores: an integration file spends most of its time waiting (on schedules'
          // fires, polls, servers starting, spawned commands), so with two at a time the cores stood half idle.
          // The fast tier is in-process CPU work and keeps one file per core.
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
