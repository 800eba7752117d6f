// Captures the event histories that test/fast/workflows/workflow-replay.test.ts replays: one run of each mode, made by the
// workflow code of this checkout on a real dev server, worker, simulator and SQLite file. Run it when a release's
// workflow code is final and commit what it writes (binary protobuf, listed in histories.json) beside the older
// ones: a later change that replays any of them differently (a command added, moved or removed without
// `patched`) then fails the test instead of failing the runs that are open when a user upgrades. A history that
// holds the API token is refused; this checkout's path is taken out (scrubbed).
//   npm run build && npx tsx test/replay/capture.ts [label: default the checkout's short commit]
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import type { PipelineSpec } from '../../pipelines/spec.js';
import { startPipelineRun } from '../../temporal/start.js';
import { startPipelineBed } from '../support/pipeline-bed.js';
import { marketplaceSpec, pdfSpec, productUrl, resultsSpec } from '../support/pipeline-specs.js';
import { startInProcessWorker } from '../support/temporal.js';

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
  if (value instanceof Uint8Array) return Buffer.from(Buffer.from(value).toString('latin1').split(repoRoot).join('<repo>'), 'latin1') as T;
  if (Array.isArray(value)) return value.map(scrubbed) as T;
  if (value === null || typeof value !== 'object' || value.constructor?.name === 'Long') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'stackTrace' ? '' : scrubbed(v)])) as T;
}

/** One captured history, listed in histories/histories.json. */
export interface ReplayEntry {
  file: string;
  mode: 'url-list' | 'create-and-wait' | 'results-sync';
  workflowId: string;
  status: string;
  events: number;
}
fs.mkdirSync(path.join(here, 'histories'), { recursive: true });
const manifestFile = path.join(here, 'histories', 'histories.json');
let manifest: ReplayEntry[] = fs.existsSync(manifestFile) ? (JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as ReplayEntry[]) : [];

const bed = await startPipelineBed({ name: 'capture', token: TOKEN, seed: 5, runDurationMs: 300 });
const worker = await startInProcessWorker({ address: bed.temporal.address, taskQueue, env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, SCRAPE_ETL_URL_CHUNK_SIZE: '2' } });
try {
  const csv = (dir: string) =>
    [{ dir, format: 'csv', tables: [], mode: 'full', write_empty: false, delimiter: ',', bom: false, null_text: '', file_name: '{pipeline}_{table}_{timestamp}.csv', neutralize_formulas: true }] as PipelineSpec['exports'];
  const runs: Array<[ReplayEntry['mode'], PipelineSpec]> = [
    // url-list: two chunks, one URL that fails for good (a partial run), CSV exports, retention.
    ['url-list', { ...marketplaceSpec('replay-marketplace', bed.dbUrl, [productUrl(7_000_001), productUrl(7_000_002), 'https://example.com/not-a-marketplace']), exports: csv(path.join(bed.dir, 'out')), retention: { exports: 2 } }],
    // create-and-wait: a scraper created, its runs polled until they succeed, their results paged.
    ['create-and-wait', pdfSpec('replay-pdf', bed.dbUrl, 1, 3)],
    // results-sync: the service's results paged by cursor.
    ['results-sync', resultsSpec('replay-results', bed.dbUrl, 5)],
  ];
  for (const [mode, spec] of runs) {
    const handle = await startPipelineRun({ client: bed.temporal.client, taskQueue }, spec, 'replay');
    const result = await handle.result();
    // Protobuf's binary form, as the server sends it: the SDK's JSON reader (historyFromJSON) fails in this
    // install ("type must be a Type": @temporalio/common and @temporalio/proto each have their own protobufjs).
    const history = temporal.api.history.v1.History.create(scrubbed(await handle.fetchHistory()));
    const bytes = temporal.api.history.v1.History.encode(history).finish();
    if (Buffer.from(bytes).includes(TOKEN)) throw new Error(`the history of ${handle.workflowId} holds the API token`);
    if (Buffer.from(bytes).includes(repoRoot)) throw new Error(`the history of ${handle.workflowId} holds this checkout's path`);
    const file = `${label}-${mode}.binpb`;
    fs.writeFileSync(path.join(here, 'histories', file), bytes);
    // The workflow reads its own id (it must match the pipeline's name), and a history does not hold it.
    const entry: ReplayEntry = { file, mode, workflowId: handle.workflowId, status: result.status, events: history.events.length };
    manifest = [...manifest.filter((e) => e.file !== file), entry];
    console.log(`${file}: ${result.status}, ${history.events.length} events`);
  }
  fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
} finally {
  await worker.stop();
  await bed.close();
}
