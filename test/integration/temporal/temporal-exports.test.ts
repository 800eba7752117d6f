// Exports as the last phase of a real pipeline run (dev server, worker, simulator, SQLite file):
// - an export that streams for longer than the heartbeat timeout completes (it heartbeats while streaming;
//   before, it heartbeated once per export entry, timed out, and every retry left another set of files);
// - a retried export attempt writes the same files again instead of adding a set, and never replaces an
//   incremental file it already wrote with an empty one (the watermark had moved);
// - an export that cannot be written fails for good at once, and the run's data keeps its 'succeeded' status,
//   with the export's failure reported beside it (before, the whole run failed after ten attempts);
// - an incremental export with no new row writes no file: the run's result and pipeline_runs say no_new_rows
//   (write_empty: true writes the header-only files as before).
// Files are read back with Python's csv module, an independent strict reader.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, createActivityDeps } from '../../../activities/index.js';
import type { ExportsOutput } from '../../../activities/types.js';
import { getPipelineRun } from '../../../db/store/pipeline-runs.js';
import type { ExportSpec } from '../../../pipelines/spec.js';
import { startPipelineRun } from '../../../temporal/start.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { jobBoardSpec } from '../../support/pipeline-specs.js';
import { startInProcessWorker, type InProcessWorker } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `exports-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let worker: InProcessWorker;

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'exports', token: TOKEN, seed: 31, runDurationMs: 500 });
  worker = await startInProcessWorker({
    address: bed.temporal.address,
    taskQueue,
    // A heartbeat timeout far shorter than the long export below takes.
    env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, SCRAPE_ETL_HEARTBEAT_TIMEOUT: '1s' },
  });
});

afterAll(async () => {
  await worker?.stop();
  await bed?.close();
});

const conn = () => ({ client: bed.temporal.client, taskQueue });

function exportTo(dir: string, mode: ExportSpec['mode'] = 'full'): ExportSpec {
  return {
    dir,
    format: 'csv',
    tables: [],
    mode,
    write_empty: false,
    delimiter: ',',
    bom: false,
    null_text: '',
    file_name: '{pipeline}_{table}_{timestamp}.csv',
    neutralize_formulas: true,
  };
}

/** Data records of a CSV file as Python's csv module (strict) counts them, header excluded. */
function pythonRecordCount(file: string): number {
  const script =
    'import csv,sys\nwith open(sys.argv[1], newline="", encoding="utf-8") as f:\n  print(sum(1 for _ in csv.reader(f, strict=True)) - 1)';
  return Number(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' }).trim());
}

/** `n` job records of `pipeline`, as if loaded before any run (load id 0), written with one statement. */
function insertJobRecords(pipeline: string, n: number, loadId = 0): void {
  if (bed.db.dialect !== 'sqlite') throw new Error('sqlite only');
  bed.db.sqlite
    .prepare(
      `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
       INSERT INTO job_records (job_key, job_title, job_url, job_location, job_salary_number, job_salary_text, job_type, job_currency, pipeline, load_id, loaded_at, row_hash)
       SELECT 'k' || i, 'Engineer ' || i, 'https://jobs.example/' || i, 'Zürich' || char(10) || 'Remote', i * 1.5, '=' || i, 'full-time', 'CHF', ?, ?, '2026-01-01T00:00:00Z', 'h' || i
       FROM seq`,
    )
    .run(n, pipeline, loadId);
}

describe('exports in a pipeline run', () => {
  it('an export streaming far longer than the heartbeat timeout completes, with one set of files', async () => {
    const dir = path.join(bed.dir, 'long');
    insertJobRecords('long-export', 400_000);
    const spec = {
      ...jobBoardSpec('long-export', bed.dbUrl, ['https://jobs.example/list/1']),
      exports: [exportTo(dir)],
    };
    const started = Date.now();
    const result = await (await startPipelineRun(conn(), spec, 'r1')).result();
    console.log(
      `long export: ${Date.now() - started} ms for ${result.rowsByTable['job_records'] ?? 0} new + 400000 earlier job records`,
    );
    expect(result.status).toBe('succeeded');
    expect(result.exportStatus).toBe('succeeded');
    const files = fs.readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(pythonRecordCount(path.join(dir, files[0]!))).toBe(400_000 + (result.rowsByTable['job_records'] ?? 0));
  });

  it('a retried export attempt replaces its own files and keeps the incremental ones it wrote', async () => {
    const dir = path.join(bed.dir, 'retry');
    insertJobRecords('retry-export', 50);
    const deps = createActivityDeps({ env: {} });
    try {
      const { runExports } = createActivities(deps);
      const spec = {
        ...jobBoardSpec('retry-export', bed.dbUrl, ['https://jobs.example/list/2']),
        exports: [exportTo(dir, 'incremental'), exportTo(path.join(dir, 'full'))],
      };
      const input = { workflowId: 'retry-export--r1', spec, startedAt: '2026-11-23T10:00:00.000Z' };
      const first: ExportsOutput = await new MockActivityEnvironment({ attempt: 1 }).run(runExports, input);
      const before = fs.readdirSync(dir).sort();
      // The second attempt starts with no heartbeat from the first: the crash came before it was recorded.
      const second: ExportsOutput = await new MockActivityEnvironment({ attempt: 2 }).run(runExports, input);
      expect(fs.readdirSync(dir).sort()).toEqual(before);
      expect(second.files).toEqual(first.files);
      const incremental = first.files.find((f) => path.dirname(f.file) === dir)!;
      expect(incremental.rows).toBe(50);
      expect(pythonRecordCount(incremental.file)).toBe(50);
    } finally {
      await deps.close();
    }
  });

  it('an incremental export with no new row writes no file; the result and pipeline_runs say so; write_empty writes them', async () => {
    const dir = path.join(bed.dir, 'nothing-new');
    const spec = {
      ...jobBoardSpec('nothing-new', bed.dbUrl, ['https://jobs.example/list/4']),
      exports: [exportTo(dir, 'incremental')],
    };
    const first = await (await startPipelineRun(conn(), spec, 'r1')).result();
    expect(first.rowsByTable['job_records']).toBeGreaterThan(0);
    expect(first.exportStatus).toBe('succeeded');
    expect(first.exportFiles?.map((f) => f.table)).toEqual(['job_records']);
    expect(first.exportUnchanged).toEqual([]);
    const files = fs.readdirSync(dir).sort();
    expect(files).toHaveLength(1);

    // The same list again: the service answers the same jobs, the load changes no row, so nothing is new.
    const handle = await startPipelineRun(conn(), spec, 'r2');
    const second = await handle.result();
    expect(second.status).toBe('succeeded');
    expect(second.rowsByTable['job_records'] ?? 0).toBe(0);
    expect(second).toMatchObject({
      exportStatus: 'no_new_rows',
      exportedFiles: 0,
      exportFiles: [],
      exportUnchanged: ['job_records'],
      exportError: null,
    });
    expect(fs.readdirSync(dir).sort()).toEqual(files);
    expect((await getPipelineRun(bed.db, handle.workflowId))?.exportStatus).toBe('no_new_rows');

    // write_empty: the file is written with its header and no rows, as before.
    const third = await (
      await startPipelineRun(
        conn(),
        { ...spec, exports: [{ ...exportTo(dir, 'incremental'), write_empty: true }] },
        'r3',
      )
    ).result();
    expect(third).toMatchObject({ exportStatus: 'succeeded', exportedFiles: 1, exportUnchanged: [] });
    expect(third.exportFiles?.[0]?.rows).toBe(0);
    expect(pythonRecordCount(third.exportFiles![0]!.file)).toBe(0);
    expect(fs.readdirSync(dir)).toHaveLength(2);
  });

  it('an export that cannot be written fails at once; the data keeps its succeeded status, the export its failure', async () => {
    const notADir = path.join(bed.dir, 'a-file');
    fs.writeFileSync(notADir, 'not a folder');
    const spec = {
      ...jobBoardSpec('export-fails', bed.dbUrl, ['https://jobs.example/list/3']),
      exports: [exportTo(path.join(notADir, 'exports'))],
    };
    const started = Date.now();
    const handle = await startPipelineRun(conn(), spec, 'r1');
    const result = await handle.result();
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.status).toBe('succeeded');
    expect(result.rowsByTable['job_records']).toBeGreaterThan(0);
    expect(result.exportStatus).toBe('failed');
    // One sentence naming the file in the way and the fix, not Node's errno.
    expect(result.exportError).toBe(
      `export folder ${path.join(notADir, 'exports')} cannot be created: ${notADir} is a file, not a folder; remove or rename that file, or set exports[].dir in the pipeline file to another folder`,
    );
    const row = await getPipelineRun(bed.db, handle.workflowId);
    expect(row?.status).toBe('succeeded');
    expect(row?.exportStatus).toBe('failed');
    expect(row?.exportError).toBe(result.exportError);
  });
});
