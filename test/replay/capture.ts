// Captures the event histories that test/fast/workflows/workflow-replay.test.ts replays: one run of each mode, made by the
// workflow code of this checkout on a real dev server, worker, simulator and SQLite file. Run it when a release's
// workflow code is final and commit what it writes (binary protobuf, listed in histories.json) beside the older
// ones: a later change that replays any of them differently (a command added, moved or removed without
// `patched`) then fails the test instead of failing the runs that are open when a user upgrades. A history that
// holds the API token is refused; this checkout's path is taken out (scrubbed).
//   npm run build && npx tsx test/replay/capture.ts [label: default the checkout's short commit]
// CAPTURE_BUNDLE=<checkout>/dist/workflow-bundle.js records the workflow code of another built checkout instead
// (with this checkout's activities, a superset): how the histories of a release's patched() markers are made
// after the fact. Besides one run of each mode, a 'hooks' url-list run has a webhook, checks, a watch and
// retention, and a 'cancelled' url-list run is cancelled while it waits out a service outage (its own worker's
// service address is a closed port), so every patched() step of the workflow is in some history.
// CAPTURE_ONLY=url-list-cancelled,results-sync (the file names' tails) records only those runs.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import type { PipelineSpec } from '../../pipelines/spec.js';
import { startPipelineRun } from '../../temporal/start.js';
import { startPipelineBed } from '../support/pipeline-bed.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parsePipelineText } from '../../pipelines/loader.js';
import { marketplaceSpec, pdfSpec, productUrl, resultsSpec } from '../support/pipeline-specs.js';
import { getPipelineRun } from '../../db/store/pipeline-runs.js';
import type { PipelineProgress } from '../../temporal/contract.js';
import { decryptHistoryInPlace, startInProcessWorker } from '../support/temporal.js';

// A CommonJS module: its namespace is its default export.
const { temporal } = proto;

const here = path.dirname(fileURLToPath(import.meta.url));
const label = process.argv[2] ?? execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: here }).toString().trim();
if (!/^[\w.-]+$/.test(label)) throw new Error(`release label '${label}': letters, digits, '.', '_' and '-' only`);
const TOKEN = `capture-${crypto.randomBytes(8).toString('hex')}`;
const taskQueue = `capture-${crypto.randomBytes(4).toString('hex')}`;

const repoRoot = path.resolve(here, '..', '..');
/**
 * The history without this machine's paths: failures' stack traces (which replay never reads) emptied, and the
 * checkout's folder in any text or payload replaced by '<repo>'. The bed's temp files stay as they were.
 */
function scrubbed<T>(value: T): T {
  if (typeof value === 'string') return value.split(repoRoot).join('<repo>') as T;
  if (value instanceof Uint8Array)
    return Buffer.from(Buffer.from(value).toString('latin1').split(repoRoot).join('<repo>'), 'latin1') as T;
  if (Array.isArray(value)) return value.map(scrubbed) as T;
  if (value === null || typeof value !== 'object' || value.constructor?.name === 'Long') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'stackTrace' ? '' : scrubbed(v)])) as T;
}

/** One captured history, listed in histories/histories.json. */
export interface ReplayEntry {
  file: string;
  mode: 'url-list' | 'create-and-wait' | 'results-sync';
  /** What else the run did than its mode (e.g. 'hooks': a webhook, checks, a watch, retention). */
  variant?: string;
  workflowId: string;
  status: string;
  events: number;
}
fs.mkdirSync(path.join(here, 'histories'), { recursive: true });
const manifestFile = path.join(here, 'histories', 'histories.json');
let manifest: ReplayEntry[] = fs.existsSync(manifestFile)
  ? (JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as ReplayEntry[])
  : [];

const bundle = process.env['CAPTURE_BUNDLE']?.trim();
if (bundle && !fs.existsSync(bundle))
  throw new Error(`CAPTURE_BUNDLE=${bundle}: no such file (build that checkout first)`);
// The webhook of the 'hooks' run: answers 200 to every alert and watch event.
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200).end('ok'));
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hookBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
const only = process.env['CAPTURE_ONLY']
  ?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const wanted = (mode: string, variant?: string) => !only || only.includes(variant ? `${mode}-${variant}` : mode);
// An address nothing listens on: the service of the 'cancelled' run's worker, down for the whole run.
const closedPort = await new Promise<number>((resolve) => {
  const s = http.createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as AddressInfo;
    s.close(() => resolve(port));
  });
});
const bed = await startPipelineBed({ name: 'capture', token: TOKEN, seed: 5, runDurationMs: 300 });
const worker = await startInProcessWorker({
  address: bed.temporal.address,
  taskQueue,
  env: {
    SCRAPER_BASE_URL: bed.sim.baseUrl,
    SCRAPER_API_TOKEN: TOKEN,
    SCRAPE_ETL_URL_CHUNK_SIZE: '2',
    HOOK_BASE: hookBase,
  },
  ...(bundle ? { workflowBundle: { codePath: path.resolve(bundle) } } : {}),
});
const downQueue = `${taskQueue}-down`;
const downWorker = wanted('url-list', 'cancelled')
  ? await startInProcessWorker({
      address: bed.temporal.address,
      taskQueue: downQueue,
      env: { SCRAPER_BASE_URL: `http://127.0.0.1:${closedPort}`, SCRAPER_API_TOKEN: TOKEN },
      ...(bundle ? { workflowBundle: { codePath: path.resolve(bundle) } } : {}),
    })
  : undefined;

/** Writes a finished run's history (in clear, scrubbed) and lists it in the manifest. */
async function record(
  handle: Awaited<ReturnType<typeof startPipelineRun>>,
  mode: ReplayEntry['mode'],
  variant: string | undefined,
  status: string,
): Promise<void> {
  // Protobuf's binary form, as the server sends it: the SDK's JSON reader (historyFromJSON) fails in this
  // install ("type must be a Type": @temporalio/common and @temporalio/proto each have their own protobufjs).
  // In clear: the payloads are encrypted with this machine's key, and a replay elsewhere has another one.
  const fetched = await handle.fetchHistory();
  await decryptHistoryInPlace(fetched);
  const history = temporal.api.history.v1.History.create(scrubbed(fetched));
  const bytes = temporal.api.history.v1.History.encode(history).finish();
  if (Buffer.from(bytes).includes(TOKEN)) throw new Error(`the history of ${handle.workflowId} holds the API token`);
  if (Buffer.from(bytes).includes(repoRoot))
    throw new Error(`the history of ${handle.workflowId} holds this checkout's path`);
  const file = `${label}-${mode}${variant ? `-${variant}` : ''}.binpb`;
  fs.writeFileSync(path.join(here, 'histories', file), bytes);
  // The workflow reads its own id (it must match the pipeline's name), and a history does not hold it.
  const entry: ReplayEntry = {
    file,
    mode,
    ...(variant ? { variant } : {}),
    workflowId: handle.workflowId,
    status,
    events: history.events.length,
  };
  manifest = [...manifest.filter((e) => e.file !== file), entry];
  console.log(`${file}: ${status}, ${history.events.length} events`);
}

try {
  const csv = (dir: string) =>
    [
      {
        dir,
        format: 'csv',
        tables: [],
        mode: 'full',
        write_empty: false,
        delimiter: ',',
        bom: false,
        null_text: '',
        file_name: '{pipeline}_{table}_{timestamp}.csv',
        neutralize_formulas: true,
      },
    ] as PipelineSpec['exports'];
  const hooks = parsePipelineText(
    [
      'name: replay-hooks',
      'kind: marketplace',
      'request:',
      '  urls:',
      `    - ${productUrl(7_000_011)}`,
      `    - ${productUrl(7_000_012)}`,
      `destination: { database: "${bed.dbUrl}" }`,
      'checks:',
      '  - { type: row_count, table: marketplace_products, min: 1 }',
      'watch:',
      '  - { type: new_rows, table: marketplace_products }',
      'notify:',
      '  webhooks:',
      '    - url: ${HOOK_BASE}/hook',
      '      on: [succeeded, new_rows]',
      'retention: { raw_responses: 30d }',
    ].join('\n'),
    'replay-hooks.yaml',
    { env: { HOOK_BASE: hookBase } },
  );
  const runs: Array<[ReplayEntry['mode'], PipelineSpec, string?]> = [
    // url-list: two chunks, one URL that fails for good (a partial run), CSV exports, retention.
    [
      'url-list',
      {
        ...marketplaceSpec('replay-marketplace', bed.dbUrl, [
          productUrl(7_000_001),
          productUrl(7_000_002),
          'https://example.com/not-a-marketplace',
        ]),
        exports: csv(path.join(bed.dir, 'out')),
        retention: { exports: 2 },
      },
    ],
    // create-and-wait: a scraper created, its runs polled until they succeed, their results paged.
    ['create-and-wait', pdfSpec('replay-pdf', bed.dbUrl, 1, 3)],
    // results-sync: the service's results paged by cursor.
    ['results-sync', resultsSpec('replay-results', bed.dbUrl, 5)],
    // Every optional step: alerts (bounded), the webhook check of the plan, checks, a watch, retention.
    ['url-list', hooks, 'hooks'],
  ];
  for (const [mode, spec, variant] of runs) {
    if (!wanted(mode, variant)) continue;
    const handle = await startPipelineRun({ client: bed.temporal.client, taskQueue }, spec, 'replay');
    const result = await handle.result();
    await record(handle, mode, variant, result.status);
  }
  if (downWorker) {
    // Cancelled while it waits out the outage (a 10-minute timer): the run finishes its row 'cancelled' and ends
    // CANCELLED (CANCEL_PATCH, workflows/pipeline.ts).
    const spec: PipelineSpec = {
      ...marketplaceSpec('replay-cancelled', bed.dbUrl, [productUrl(7_000_021)]),
      polling: { initial_interval: '10m', backoff_coefficient: 2, max_interval: '10m', deadline: '2h' },
    };
    const handle = await startPipelineRun({ client: bed.temporal.client, taskQueue: downQueue }, spec, 'replay');
    const waitingBy = Date.now() + 180_000;
    while (!(await handle.query<PipelineProgress>('progress')).waiting) {
      if (Date.now() > waitingBy)
        throw new Error(`${handle.workflowId} did not start waiting out the outage within 3 minutes`);
      await new Promise((r) => setTimeout(r, 250));
    }
    await handle.cancel();
    const ended = await handle.result().then(
      () => 'completed',
      (err: unknown) => String((err as { cause?: { name?: string } }).cause?.name ?? err),
    );
    const { status } = await handle.describe();
    const row = await getPipelineRun(bed.db, handle.workflowId);
    if (status.name !== 'CANCELLED' || row?.status !== 'cancelled') {
      throw new Error(
        `${handle.workflowId}: cancelled, it ended ${status.name} (${ended}) with its pipeline_runs row '${row?.status}' (expected CANCELLED, 'cancelled')`,
      );
    }
    await record(handle, 'url-list', 'cancelled', 'cancelled');
  }
  fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
} finally {
  await downWorker?.stop();
  await worker.stop();
  await bed.close();
  await new Promise((r) => receiver.close(r));
}
