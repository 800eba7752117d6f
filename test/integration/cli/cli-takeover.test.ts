// `scrape-etl run` (no `up`: its own worker) killed with its whole process group while the PDF example waits for its
// scraping runs, on the embedded dev server, which keeps running. Running the same command again must take the dead
// worker's wait over within seconds (nothing is billed on the embedded server, so its wait heartbeats often), and
// say on its line what it waits for and until when.
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { CLI, REPO_ROOT, runCli } from '../../support/cli.js';
import { isProcessAlive } from '../../../lib/process-alive.js';
import { readDevServerState } from '../../../temporal/dev-server.js';

const TOKEN = 'cli-takeover-test-token';
const FILE = path.join(REPO_ROOT, 'pipelines', 'examples', 'pdf.yaml');
let bed: CliBed;

beforeAll(async () => {
  bed = await startCliBed({ name: 'takeover', token: TOKEN, seed: 36 });
  // Scraping runs that last long past the kill: the second command finishes only if it takes the wait over, and
  // the default 5-minute wait heartbeat timeout of a cluster would not let it within the minute.
  bed.sim.setRunDurationMs(30_000);
});

afterAll(async () => {
  await bed?.close();
});

describe('run killed (process group, SIGKILL) while it waits for a scraping run, then run again', () => {
  it('takes the dead worker over on the embedded server and finishes within 60 s, saying so on its line', async () => {
    const env = { ...process.env, NO_COLOR: '1', ...bed.env };
    const child = spawn(process.execPath, [CLI, 'run', FILE], {
      cwd: bed.dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stderr = '';
    const closed = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('close', (_code, signal) => resolve(signal)),
    );
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (/waiting 0\/2/.test(stderr)) resolve();
      });
      child.on('close', () => reject(new Error(`run exited before waiting:\n${stderr}`)));
    });
    const workflowId = /started (\S+)/.exec(stderr)?.[1];
    expect(workflowId, stderr).toMatch(/^pdf-annual-reports--/);
    // The waiting activity has reached the server (its first heartbeat goes out at once).
    await new Promise((r) => setTimeout(r, 1500));
    process.kill(-child.pid!, 'SIGKILL');
    expect(await closed).toBe('SIGKILL');
    const server = readDevServerState(path.join(bed.dir, 'data'));
    expect(isProcessAlive(server!.pid!), 'the embedded server outlives the killed command').toBe(true);

    const began = Date.now();
    const again = await runCli(['run', FILE], { cwd: bed.dir, env: bed.env, timeoutMs: 60_000 });
    const tookMs = Date.now() - began;
    expect(again.code, `${again.stderr}\n(after ${tookMs} ms)`).toBe(0);
    expect(tookMs).toBeLessThan(60_000);
    expect(again.stderr).toContain(`resuming unfinished run ${workflowId}`);
    // What it waited for, and until when (a local clock time).
    expect(again.stderr).toMatch(/the previous worker \(pid \d+\) stopped; taken over by \d\d:\d\d:\d\d/);
    // One scraper run per keyword, created once: the wait was taken over, not started again.
    expect(bed.sim.truth.runs().filter((r) => r.scraper_name.startsWith('pdf-annual-reports--'))).toHaveLength(2);
    // The run's row and its six results, read by Python's sqlite3.
    const read = `import sqlite3, sys, json
c = sqlite3.connect(sys.argv[1])
print(json.dumps([c.execute("SELECT status FROM pipeline_runs WHERE workflow_id = ?", (sys.argv[2],)).fetchone()[0], c.execute("SELECT COUNT(*) FROM pdf_results").fetchone()[0]]))`;
    const dbFile = path.join(bed.dir, 'data', 'scrape-etl.sqlite');
    expect(JSON.parse(execFileSync('python3', ['-c', read, dbFile, workflowId!], { encoding: 'utf8' }))).toEqual([
      'succeeded',
      6,
    ]);
  }, 150_000);
});
