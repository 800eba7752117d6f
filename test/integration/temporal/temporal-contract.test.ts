// The kind registry and the Temporal contract, on a real dev server, worker, simulator and SQLite file:
// - every kind of the registry has an example pipeline that runs, calls exactly the endpoints its registry entry
//   declares, and writes only the tables it declares (so a wrong declaration fails here, not in production);
// - a workflow started with a kind the registry does not know fails at once, non-retryably, with the kind named
//   and nothing written (before the registry it ran no step at all and finished "succeeded");
// - the workflow type, ids and schedule action all come from the one contract;
// - inside activities the client makes at most two HTTP attempts per call: Temporal's retry policy does the rest.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivityDeps, CLIENT_ATTEMPTS_IN_ACTIVITIES } from '../../../activities/deps.js';
import { ApiHttpError } from '../../../client/index.js';
import { DATA_TABLES } from '../../../db/model/tables.js';
import { contentTableName } from '../../../db/model/evolve/names.js';
import { KINDS } from '../../../kinds/index.js';
import { loadPipelineFile } from '../../../pipelines/loader.js';
import { PIPELINE_KINDS, type PipelineSpec } from '../../../pipelines/spec.js';
import { PIPELINE_WORKFLOW_TYPE, pipelineWorkflowId } from '../../../temporal/contract.js';
import { pipelineScheduleAction, startPipelineRun } from '../../../temporal/start.js';
import { pipelineWorkflow } from '../../../workflows/pipeline.js';
import { countRows } from '../../support/db-dump.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { FAST_POLLING } from '../../support/pipeline-specs.js';
import { startInProcessWorker, type InProcessWorker } from '../../support/temporal.js';

const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'pipelines', 'examples');
const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `contract-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let worker: InProcessWorker;

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'contract', token: TOKEN, seed: 21, runDurationMs: 500 });
  worker = await startInProcessWorker({
    address: bed.temporal.address,
    taskQueue,
    env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN, SCRAPE_ETL_HEARTBEAT_TIMEOUT: '3s' },
  });
});

afterAll(async () => {
  await worker?.stop();
  await bed?.close();
});

const conn = () => ({ client: bed.temporal.client, taskQueue });

async function countAll(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of DATA_TABLES) out[t] = await countRows(bed.db, t);
  return out;
}

/** The simulator's route names use `:id` where the registry (and the spec) write `{id}`. */
const route = (endpoint: string) => endpoint.replace(/\{(\w+)\}/g, ':$1');

describe('kind registry', () => {
  it('covers every pipeline kind with an example file of that kind', async () => {
    expect(Object.keys(KINDS).sort()).toEqual([...PIPELINE_KINDS].sort());
    for (const kind of PIPELINE_KINDS) {
      const spec = await loadPipelineFile(path.join(EXAMPLES, `${kind}.yaml`), { env: {} });
      expect(spec.kind).toBe(kind);
      expect(KINDS[kind].kind).toBe(kind);
      for (const t of KINDS[kind].tables) expect(DATA_TABLES).toContain(t);
    }
  });

  it.each(PIPELINE_KINDS)(
    '%s: its example runs, calls only its declared endpoints and writes only its declared tables',
    async (kind) => {
      const file = await loadPipelineFile(path.join(EXAMPLES, `${kind}.yaml`), { env: {} });
      const spec = {
        ...file,
        name: `ex-${kind}`,
        destination: { database: bed.dbUrl },
        exports: [],
        polling: FAST_POLLING,
      } as PipelineSpec;
      bed.sim.resetStats();
      const before = await countAll();
      const result = await (await startPipelineRun(conn(), spec, 'r1')).result();
      expect(result.status).toBe('succeeded');

      const declared = new Set(KINDS[kind].endpoints.map(route));
      const called = Object.keys(bed.sim.stats().byEndpoint);
      expect(called.length).toBeGreaterThan(0);
      for (const endpoint of called) expect(declared, `${kind} called ${endpoint}`).toContain(endpoint);

      const after = await countAll();
      const grown = DATA_TABLES.filter((t) => (after[t] ?? 0) > (before[t] ?? 0));
      expect(grown.length).toBeGreaterThan(0);
      for (const t of grown) expect(KINDS[kind].tables, `${kind} wrote ${t}`).toContain(t);
      // The run's counts: its model tables, and the pipeline's own inferred content tables (`<pipeline>_items` family).
      const content = contentTableName(spec.name);
      for (const t of Object.keys(result.rowsByTable)) {
        if ((DATA_TABLES as readonly string[]).includes(t)) expect(KINDS[kind].tables).toContain(t);
        else expect(t === content || t.startsWith(`${content}__`), `${kind} counted ${t}`).toBe(true);
      }
    },
  );
});

describe('unknown kind', () => {
  it('fails the workflow at once, non-retryably, naming the kind, with nothing written', async () => {
    // A kind without a URL list: the starter itself stores nothing in the destination either.
    const base = { ...(await loadPipelineFile(path.join(EXAMPLES, 'results.yaml'), { env: {} })) };
    const dbFile = path.join(bed.dir, 'never-written.sqlite');
    const spec = {
      ...base,
      name: 'sitemap-pipeline',
      kind: 'sitemap',
      destination: { database: `sqlite:${dbFile}` },
    } as unknown as PipelineSpec;
    const started = Date.now();
    const handle = await startPipelineRun(conn(), spec, 'r1');
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('UnknownPipelineKind');
    expect((cause as ApplicationFailure).nonRetryable).toBe(true);
    expect((cause as ApplicationFailure).message).toMatch(
      /unknown pipeline kind 'sitemap': expected one of pdf, leads-search-engine/,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    // No activity ran: no pipeline_runs row, no database file, one attempt of the plan and no retries.
    expect(fs.existsSync(dbFile)).toBe(false);
    const history = await handle.fetchHistory();
    const scheduled = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled).toEqual([]);
  });
});

describe('one contract', () => {
  it('names the workflow type, ids and schedule action in one place', async () => {
    expect(pipelineWorkflow.name).toBe(PIPELINE_WORKFLOW_TYPE);
    const spec = await loadPipelineFile(path.join(EXAMPLES, 'results.yaml'), { env: {} });
    const action = await pipelineScheduleAction(bed.temporal.client, spec, 'q');
    expect(action.workflowType).toBe(PIPELINE_WORKFLOW_TYPE);
    expect(action.workflowId).toBe(pipelineWorkflowId(spec.name, 'scheduled'));
    const handle = await startPipelineRun(
      conn(),
      { ...spec, name: 'contract-id', destination: { database: bed.dbUrl } },
      'k1',
    );
    expect(handle.workflowId).toBe('contract-id--k1');
    expect((await handle.describe()).type).toBe(PIPELINE_WORKFLOW_TYPE);
    await handle.result();
  });

  it('inside activities the client makes at most two attempts per call, whatever it is configured with', async () => {
    const deps = createActivityDeps({
      env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN },
      client: { retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 5 } },
    });
    try {
      expect(deps.client().retry.maxAttempts).toBe(CLIENT_ATTEMPTS_IN_ACTIVITIES);
      bed.sim.resetStats();
      bed.sim.queueFaults(
        Array.from({ length: 5 }, () => ({ status: 503 })),
        { path: '/api/marketplace/sync' },
      );
      const err = await deps
        .client()
        .marketplaceSync({ url: 'https://shopee.tw/api/v2/item/get?itemid=1&shopid=2' })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(ApiHttpError);
      expect(bed.sim.stats().byEndpoint['POST /api/marketplace/sync']).toBe(2);
    } finally {
      bed.sim.clearFaults();
      await deps.close();
    }
  });
});
