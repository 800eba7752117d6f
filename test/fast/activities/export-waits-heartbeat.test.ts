// A run's exports on a DuckDB file another program holds (an analyst's read-only session takes DuckDB's own lock;
// the file allows one process at a time) wait for it, and the activity says it is alive while it waits, with the
// entries it has done (activities/exports.ts heartbeats on a clock). Before, it sent nothing until its first rows
// were written: a wait or a slow start longer than the heartbeat timeout timed the attempt out, and the chaos soak on
// DuckDB saw a run's exports retried to attempt 10 of 10, each "activity Heartbeat timeout".
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createActivities, createActivityDeps } from '../../../activities/index.js';
import type { ExportsHeartbeat, ExportsOutput } from '../../../activities/types.js';
import { openDatabase } from '../../../destinations/open.js';
import { marketplaceSpec, productUrl } from '../../support/pipeline-specs.js';
import { pythonReadersEnv } from '../../support/python-readers.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-waits-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

// Python's duckdb holds the file read-only (DuckDB's own lock) for argv[2] ms after saying so.
const PY_HOLD = `
import duckdb, sys, time
c = duckdb.connect(sys.argv[1], read_only=True)
print('holding', flush=True)
time.sleep(float(sys.argv[2]) / 1000)
c.close()
`;

it('an export waiting for a DuckDB file another program holds heartbeats its done entries while it waits', async () => {
  const file = path.join(dir, 'dest.duckdb');
  const dbUrl = `duckdb:${file}`;
  // The file exists, migrated, and closed again.
  await (await openDatabase(dbUrl)).close();
  const spec = {
    ...marketplaceSpec('waits', dbUrl, [productUrl(9_300_000)]),
    exports: [
      {
        dir: path.join(dir, 'out'),
        tables: [],
        format: 'csv' as const,
        mode: 'full' as const,
        write_empty: true,
        delimiter: ',',
        bom: false,
        null_text: '',
        file_name: '{pipeline}_{table}_{timestamp}.csv',
        neutralize_formulas: true,
      },
    ],
  };
  const holdMs = 2500;
  const python = spawn('python3', ['-c', PY_HOLD, file, String(holdMs)], {
    env: pythonReadersEnv(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const released = new Promise<number>((resolve) => python.once('exit', () => resolve(Date.now())));
  await new Promise<void>((resolve) => python.stdout!.once('data', () => resolve()));
  const holdingSince = Date.now();

  const deps = createActivityDeps({ env: {} });
  const beats: Array<{ at: number; details: ExportsHeartbeat }> = [];
  try {
    const env = new MockActivityEnvironment({ attempt: 1, heartbeatTimeoutMs: 1000 });
    env.on('heartbeat', (d: unknown) => beats.push({ at: Date.now(), details: d as ExportsHeartbeat }));
    const out = (await env.run(createActivities(deps).runExports, {
      workflowId: 'waits--r1',
      spec,
      startedAt: new Date().toISOString(),
    })) as ExportsOutput;
    // The pipeline has no rows: a full export of them writes no file, once the file could be read.
    expect(out).toEqual({ files: [], unchanged: [] });
  } finally {
    await deps.close();
  }
  const releasedAt = await released;
  // The file was busy for over a heartbeat timeout, and the activity beat within every second of it.
  expect(releasedAt - holdingSince).toBeGreaterThan(2000);
  const whileHeld = beats.filter((b) => b.at < releasedAt);
  expect(whileHeld.length).toBeGreaterThan(0);
  expect(whileHeld[0]!.at - holdingSince).toBeLessThan(1000);
  // With the details a retry resumes from (no entry done yet), never a bare heartbeat.
  for (const b of whileHeld) expect(b.details).toEqual({ done: [] });
});
