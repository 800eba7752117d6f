// A destination as a user's would look after some days of work, made by the real command line: `scrape-etl demo`
// twice (every example pipeline, two seeds, so prices and leads change between runs), a marketplace pipeline run
// with one URL the service rejects (a partial run), on a Temporal Schedule (next scheduled time), and a job-board
// answer whose texts are hostile HTML, loaded with `scrape-etl load`.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { startCliBed, type CliBed } from './cli-bed.js';
import { runCli } from './cli.js';
import { productUrl } from './pipeline-specs.js';
import { ensureDevServer } from '../../temporal/dev-server.js';

export interface ConsoleFixture {
  bed: CliBed;
  dataDir: string;
  dbFile: string;
  dbUrl: string;
  partialPipeline: string;
  badUrl: string;
  hostileTitle: string;
  close(): Promise<void>;
}

export const HOSTILE_TITLE = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>"'&`;

export async function buildConsoleFixture(name: string): Promise<ConsoleFixture> {
  const bed = await startCliBed({ name, token: `${name}-token`, seed: 21 });
  try {
    const dataDir = bed.env['SCRAPE_ETL_DATA_DIR']!;
    const dbFile = path.join(dataDir, 'scrape-etl.sqlite');
    const dbUrl = `sqlite:${dbFile}`;
    for (const seed of ['1', '2']) {
      const r = await runCli(['demo', '--seed', seed], { cwd: bed.dir, env: bed.env, timeoutMs: 240_000 });
      expect(r.code, `demo --seed ${seed}: ${r.stderr}`).toBe(0);
    }
    const partialPipeline = 'market-watch';
    const badUrl = 'https://shopee.tw/api/v2/item/get?itemid=555&shopid=42&sim_models=0';
    const file = path.join(bed.dir, 'market-watch.yaml');
    fs.writeFileSync(
      file,
      [
        `name: ${partialPipeline}`,
        'kind: marketplace',
        'request:',
        '  urls:',
        `    - ${productUrl(4420309814)}`,
        `    - ${badUrl}`,
        `    - ${productUrl(1234567890)}`,
        'price_divisor: 100000',
        'destination:',
        `  database: ${dbUrl}`,
        'schedule:',
        '  cron: "17 3 * * *"',
        '  timezone: UTC',
        '',
      ].join('\n'),
    );
    const inProcess = { ...bed.env, SCRAPE_ETL_BACKGROUND_WORKER: '0' };
    const run = await runCli(['run', file], { cwd: bed.dir, env: inProcess, timeoutMs: 180_000 });
    expect(`${run.stdout}${run.stderr}`).toMatch(/partial/);
    const applied = await runCli(['schedule', 'apply', file], { cwd: bed.dir, env: bed.env, timeoutMs: 120_000 });
    expect(applied.code, applied.stderr).toBe(0);
    // `schedule apply` without `up` stops the server it started (issue 36); the console asks a server that runs
    // (it never starts one): it runs here as under `up`.
    await ensureDevServer({ dataDir });

    // A job-board answer carrying HTML and script in its texts, as a hostile page would make the service return.
    const hostile = {
      success: true,
      result: [
        {
          job_title: HOSTILE_TITLE,
          job_url: 'javascript:alert(1)',
          job_location: '</td></tr></table><h1>injected</h1>',
          job_type: 'full-time',
        },
      ],
      tokenUsage: 7,
      totalDone: 1,
    };
    const hostileFile = path.join(bed.dir, 'hostile.json');
    fs.writeFileSync(hostileFile, JSON.stringify(hostile));
    const load = await runCli(['load', 'job-board', hostileFile, '--database', dbUrl, '--pipeline', 'hostile-jobs'], {
      cwd: bed.dir,
      env: bed.env,
    });
    expect(load.code, load.stderr).toBe(0);
    return {
      bed,
      dataDir,
      dbFile,
      dbUrl,
      partialPipeline,
      badUrl,
      hostileTitle: HOSTILE_TITLE,
      close: () => bed.close(),
    };
  } catch (err) {
    await bed.close();
    throw err;
  }
}
