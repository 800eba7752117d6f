// The compiled command writing into a pipe whose reader stops early (`scrape-etl status | head`): it exits 0 without
// an EPIPE stack trace, like other Unix tools. A real SQLite file with enough runs that the output outgrows the pipe.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import { finishPipelineRun, startPipelineRun } from '../../../db/store/pipeline-runs.js';
import { CLI } from '../../support/cli.js';

const RUNS = 3000;
let dir: string;
let database: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-pipe-'));
  database = `sqlite:${path.join(dir, 'runs.sqlite')}`;
  const db = await openDatabase(database);
  try {
    for (let i = 0; i < RUNS; i++) {
      const workflowId = `piped--${String(i).padStart(5, '0')}`;
      await startPipelineRun(db, { workflowId, pipeline: 'piped', kind: 'marketplace' });
      await finishPipelineRun(db, { workflowId, status: 'succeeded', rowsByTable: { marketplace_products: i } });
    }
  } finally {
    await db.close();
  }
}, 60_000);

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('output into a pipe closed early', () => {
  it('status into a reader that takes one chunk and leaves: exit 0, no EPIPE trace', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'status', '--database', database, '--no-temporal', '--json', '--limit', String(RUNS)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    let first = '';
    child.stdout.once('data', (b: Buffer) => {
      first = b.toString();
      child.stdout.destroy(); // what `head` does once it has its lines
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(first).toContain('piped--');
    expect(stderr).not.toMatch(/EPIPE|at .*\(|Error/);
    expect(code).toBe(0);
  });
});
