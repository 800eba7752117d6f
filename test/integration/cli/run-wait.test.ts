// How `run` waits for its workflow (cli/pipeline-runner.ts waitForRun), against a real dev server, worker and
// simulator: the first looks at a run come quickly and only later ones wait the full poll pause. A one-URL run takes
// about half a second on a warm server, and a fixed half-second tick had made `run` report it up to half a second
// late (issue 12, fixed overhead per run). The pause here is made far longer than the test may take, so the test
// fails, rather than slows down, if the first look waits a whole pause again.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../cli/logger.js';
import { startOrAttach, waitForRun } from '../../../cli/pipeline-runner.js';
import { startPipelineBed, type PipelineBed } from '../../support/pipeline-bed.js';
import { marketplaceSpec, productUrl } from '../../support/pipeline-specs.js';
import { startInProcessWorker, type InProcessWorker } from '../../support/temporal.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
const taskQueue = `run-wait-${crypto.randomBytes(4).toString('hex')}`;
let bed: PipelineBed;
let worker: InProcessWorker;

beforeAll(async () => {
  bed = await startPipelineBed({ name: 'run-wait', token: TOKEN, seed: 43, runDurationMs: 200 });
  worker = await startInProcessWorker({
    address: bed.temporal.address,
    taskQueue,
    env: { SCRAPER_BASE_URL: bed.sim.baseUrl, SCRAPER_API_TOKEN: TOKEN },
  });
});

afterAll(async () => {
  await worker?.stop();
  await bed?.close();
});

describe('waiting for a run', () => {
  it('reports a short run when it ends, not after a whole poll pause', async () => {
    const spec = marketplaceSpec('run-wait-one', bed.dbUrl, [productUrl(7_700_001)]);
    const file = path.join(bed.dir, 'run-wait-one.yaml');
    fs.writeFileSync(file, '# the spec is passed in; the file is only remembered\n');
    const log = createLogger({ env: {} });
    const run = await startOrAttach({
      client: bed.temporal.client,
      taskQueue,
      dataDir: bed.dir,
      spec,
      file,
      fresh: true,
      log,
    });
    const outcome = await waitForRun(run, { mode: 'lines', pollMs: 10 * 60_000, log });
    expect(outcome.status).toBe('completed');
    expect(outcome.status === 'completed' && outcome.result.rowsByTable['marketplace_products']).toBe(1);
  }, 60_000);
});
