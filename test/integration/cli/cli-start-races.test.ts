// Starting a run, raced: two `run`s of one pipeline started together (cold: no embedded server yet) must attach to one
// workflow and pay for one set of scrapers; and Ctrl-C at any moment of a `run`'s start must report the truth: a
// command that says no run was started started none, and a run that was started is named by its workflow id.
// Compiled CLI (`npm run build` first), real embedded Temporal server, simulator ground truth.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDevServer, readDevServerState } from '../../../temporal/dev-server.js';
import { pipelineDataConverter } from '../../../temporal/payload-codec.js';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { CLI, REPO_ROOT, jsonLines } from '../../support/cli.js';

const TOKEN = 'cli-start-races-token';
const FILE = path.join(REPO_ROOT, 'pipelines', 'examples', 'pdf.yaml');
const PIPELINE = 'pdf-annual-reports';
let bed: CliBed;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  bed = await startCliBed({ name: 'start-races', token: TOKEN, seed: 8 });
  // The worker in the command's own process (the `run` that carries out its run).
  env = { ...process.env, NO_COLOR: '1', ...bed.env, SCRAPE_ETL_BACKGROUND_WORKER: '0' };
});

afterAll(async () => {
  await bed?.close();
});

function spawnRun(args: string[]) {
  const child = spawn(process.execPath, [CLI, 'run', ...args], {
    cwd: bed.dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

async function withClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  // The commands stop the server they started (issue 36): it is read as it runs under `up`.
  const state = await ensureDevServer({ dataDir: path.join(bed.dir, 'data') });
  const connection = await Connection.connect({ address: `127.0.0.1:${state.port}` });
  try {
    return await fn(new Client({ connection, dataConverter: pipelineDataConverter() }));
  } finally {
    await connection.close();
  }
}

/** Every workflow of the pipeline the server knows (visibility catches up within a few seconds: asked until stable). */
async function workflowIds(): Promise<string[]> {
  if (!readDevServerState(path.join(bed.dir, 'data'))?.port) return []; // no server yet: no workflow
  return withClient(async (client) => {
    let last = '';
    for (let i = 0; i < 20; i++) {
      const ids: string[] = [];
      for await (const w of client.workflow.list({ query: `WorkflowId STARTS_WITH "${PIPELINE}--"` }))
        ids.push(w.workflowId);
      const now = ids.sort().join(',');
      if (now === last) return ids;
      last = now;
      await new Promise((r) => setTimeout(r, 1000));
    }
    return last.split(',').filter(Boolean);
  });
}

describe('two runs of one pipeline started together', () => {
  it('attach to one workflow: both report it, one set of scrapers is paid for', async () => {
    const a = spawnRun(['--json', FILE]);
    const b = spawnRun(['--json', FILE]);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    const ia = jsonLines(ra.stdout).at(-1)!;
    const ib = jsonLines(rb.stdout).at(-1)!;
    expect(ia['workflowId']).toBe(ib['workflowId']);
    expect(await workflowIds()).toEqual([ia['workflowId']]);
    // One scraper, that workflow's (its name ends with the run key), created once.
    const runKey = String(ia['workflowId']).slice(`${PIPELINE}--`.length);
    const scrapers = bed.sim.truth.scrapers();
    expect(scrapers).toHaveLength(1);
    expect(String(scrapers[0]!.name)).toMatch(new RegExp(`--${runKey}$`));
  }, 300_000);
});

describe('Ctrl-C while `run` starts', () => {
  it('at every moment: "no run was started" only when none was, and a started run is named', async () => {
    const findings: string[] = [];
    // How long a warm start takes on this machine now (till "started <id>"): the delays spread around it.
    const calibration = spawnRun(['--new', FILE]);
    const t0 = Date.now();
    const deadline = t0 + 120_000;
    let seen = '';
    calibration.child.stderr.on('data', (d: Buffer) => (seen += d.toString()));
    while (!/started \S+/.test(seen)) {
      if (Date.now() > deadline || calibration.child.exitCode !== null) throw new Error(`no run started:\n${seen}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const startMs = Date.now() - t0;
    calibration.child.kill('SIGINT');
    await calibration.done;
    for (const factor of [0.1, 0.4, 0.7, 0.85, 0.95, 1.0, 1.05, 1.15, 1.4, 2]) {
      const delayMs = Math.round(startMs * factor);
      const before = new Set(await workflowIds());
      const r = spawnRun(['--new', FILE]);
      await new Promise((res) => setTimeout(res, delayMs));
      r.child.kill('SIGINT');
      const out = await r.done;
      const after = await workflowIds();
      const added = after.filter((id) => !before.has(id));
      expect(added.length, `${delayMs} ms: ${out.stderr}`).toBeLessThanOrEqual(1);
      if (added.length === 1) {
        // A run was started: the command said so, naming it.
        expect(out.stderr, `${delayMs} ms`).toContain(added[0]);
        expect(out.stderr, `${delayMs} ms`).not.toMatch(/no run was started/);
        findings.push(`${delayMs} ms: started ${added[0]}`);
        await withClient((client) =>
          client.workflow
            .getHandle(added[0]!)
            .terminate('test cleanup')
            .catch(() => undefined),
        ); // may have completed already
      } else {
        expect(out.stderr, `${delayMs} ms`).not.toMatch(new RegExp(`${PIPELINE}--\\d`));
        findings.push(`${delayMs} ms: none started (${out.stderr.trim().split('\n').at(-1)})`);
      }
      // 130, or killed by the signal itself when it came before node had set up its handlers (code null).
      // 0 when the run had finished before the signal came.
      expect([130, null, 0], `${delayMs} ms: ${out.stderr}`).toContain(out.code);
    }
    // The delays cover both sides of the start: the first comes before it (node is still loading), the last after.
    process.stderr.write(`${findings.join('\n')}\n`);
    expect(
      findings.some((f) => f.includes('none started')),
      findings.join('\n'),
    ).toBe(true);
    expect(
      findings.some((f) => f.includes(': started ')),
      findings.join('\n'),
    ).toBe(true);
  }, 600_000);
});
