// Every "next:" command the product prints is run as printed (compiled CLI, `npm run build` first): `init` in a new
// folder, then each of its next steps verbatim through bash with `scrape-etl` on PATH, among them `demo
// marketplace-products` (the project's own pipeline on the simulator and the embedded Temporal server; not the
// bundled examples, which would load pipelines of their own into the project's database), whose own next steps are
// then run verbatim in turn. Each must exit 0; `status` must show the run, which lives in the project's database.
// Demo with SCRAPE_ETL_DATA_DIR set: its printed `status` must read that folder's database. And the tool as the user
// invoked it: under npx (no `scrape-etl` on the shell's PATH, where a bare `scrape-etl` exits 127) every printed
// line says `npx scrape-etl`; run as `node <path>`, it says that.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { stopDevServer } from '../../../temporal/dev-server.js';
import { CLI, REPO_ROOT } from '../../support/cli.js';

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-next-steps-')));
const binDir = path.join(dir, 'bin');
fs.mkdirSync(binDir);
fs.symlinkSync(CLI, path.join(binDir, 'scrape-etl'));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  NO_COLOR: '1',
  PATH: `${binDir}${path.delimiter}${process.env['PATH'] ?? ''}`,
};
for (const name of [
  'SCRAPER_API_TOKEN',
  'SCRAPER_BASE_URL',
  'SCRAPE_ETL_DATA_DIR',
  'TEMPORAL_ADDRESS',
  'DATABASE_URL',
  'SCRAPE_ETL_PROJECT',
])
  delete env[name];
// A user's shell, not the npm script or npx this test may run under (npm sets these for its children).
for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
/** The same shell without `scrape-etl` on PATH: as after `npm ci` in a clone, where only npx finds it. */
const bareEnv: NodeJS.ProcessEnv = { ...env, PATH: process.env['PATH'] ?? '' };

afterAll(async () => {
  for (const d of ['proj', 'pkg/proj', 'viaNode/proj']) await stopDevServer({ dataDir: path.join(dir, d, 'data') });
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The indented command lines under a `next:` line. */
export function nextSteps(output: string): string[] {
  const lines = output.split('\n');
  const at = lines.findIndex((l) => l.trim() === 'next:');
  if (at < 0) return [];
  const out: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (!l.startsWith('  ')) break;
    out.push(l.trim());
  }
  return out;
}

/** Runs lines in one bash (a `cd` holds for the lines after it); resolves with what the last line printed. */
function bash(
  lines: string[],
  cwd: string,
  shellEnv: NodeJS.ProcessEnv = env,
): Promise<{ code: number | null; stdout: string; stderr: string; cwd: string }> {
  const marker = `__cwd_${process.pid}__`;
  const script = `set -e\n${lines.join('\n')}\necho "${marker}$PWD"\n`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env: shellEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: ${lines.join('; ')}\n${stdout}\n${stderr}`));
    }, 240_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const m = new RegExp(`${marker}(.*)\\n`).exec(stdout);
      resolve({ code, stdout: stdout.replace(/__cwd_\d+__.*\n/, ''), stderr, cwd: m?.[1] ?? cwd });
    });
  });
}

/** Runs init's steps one by one, each verbatim in a new bash from where the last left off; demo's output kept. */
async function runSteps(
  steps: string[],
  from: string,
  shellEnv: NodeJS.ProcessEnv,
): Promise<{ demoOut: string; cwd: string }> {
  let cwd = from;
  let demoOut = '';
  for (const step of steps) {
    const r = await bash([`cd ${JSON.stringify(cwd)}`, step], cwd, shellEnv);
    expect({ step, code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ step, code: 0, stderr: '' });
    cwd = r.cwd;
    if (/ demo\b/.test(step)) demoOut = r.stdout;
    if (/ status marketplace-products$/.test(step)) expect(r.stdout).toMatch(/marketplace-products\s+SUCCEEDED/);
  }
  return { demoOut, cwd };
}

describe('printed next steps', () => {
  it("init's and demo's next steps run verbatim and succeed", async () => {
    const init = await bash(['scrape-etl init proj'], dir);
    expect(init.code, init.stderr).toBe(0);
    const steps = nextSteps(init.stdout);
    // The project's own pipeline, never the bundled examples (`demo` alone).
    expect(steps).toContain('scrape-etl demo marketplace-products');
    expect(steps).not.toContain('scrape-etl demo');
    const { demoOut, cwd } = await runSteps(steps, dir, env);
    expect(cwd).toBe(path.join(dir, 'proj'));

    // The run went into the project's database, and only the project's pipeline is in it.
    expect(fs.existsSync(path.join(dir, 'proj', 'data', 'scrape-etl.sqlite'))).toBe(true);
    const all = await bash(['scrape-etl status --json'], cwd);
    expect(all.code, all.stderr).toBe(0);
    const pipelines = all.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { pipeline: string }).pipeline);
    expect(new Set(pipelines)).toEqual(new Set(['marketplace-products']));
    // The demo's own next steps work from where it ran.
    const demoSteps = nextSteps(demoOut);
    expect(demoSteps).toEqual(['scrape-etl status marketplace-products']);
    for (const step of demoSteps) {
      const r = await bash([step], cwd);
      expect({ step, code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ step, code: 0, stderr: '' });
      expect(r.stdout).toMatch(/marketplace-products\s+SUCCEEDED/);
    }
  }, 400_000);

  it('under npx (no scrape-etl on PATH), every printed line says `npx scrape-etl` and runs verbatim', async () => {
    // An npm project of the user's with scrape-etl installed in it, as `npm ci` leaves one: npx finds its bin.
    const pkg = path.join(dir, 'pkg');
    fs.mkdirSync(path.join(pkg, 'node_modules', '.bin'), { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), '{"name":"next-steps-user","private":true}\n');
    fs.symlinkSync(REPO_ROOT, path.join(pkg, 'node_modules', 'scrape-etl'));
    fs.symlinkSync(
      path.join('..', 'scrape-etl', 'bin', 'scrape-etl.js'),
      path.join(pkg, 'node_modules', '.bin', 'scrape-etl'),
    );
    // The shell of the issue: a bare `scrape-etl` is not found there.
    expect((await bash(['scrape-etl --version'], pkg, bareEnv)).code).toBe(127);

    const init = await bash(['npx scrape-etl init proj'], pkg, bareEnv);
    expect(init.code, init.stderr).toBe(0);
    const steps = nextSteps(init.stdout);
    expect(steps).toEqual([
      'cd proj',
      'npx scrape-etl validate',
      'npx scrape-etl demo marketplace-products',
      'npx scrape-etl status marketplace-products',
    ]);
    expect(init.stdout).toContain('SCRAPER_API_TOKEN set: npx scrape-etl run marketplace-products');
    const { demoOut, cwd } = await runSteps(steps, pkg, bareEnv);
    expect(cwd).toBe(path.join(pkg, 'proj'));
    const demoSteps = nextSteps(demoOut);
    expect(demoSteps).toEqual(['npx scrape-etl status marketplace-products']);
    const r = await bash(demoSteps, cwd, bareEnv);
    expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/marketplace-products\s+SUCCEEDED/);
  }, 400_000);

  it('run as `node <path>` (no scrape-etl on PATH, no npm), the printed lines say that and run verbatim', async () => {
    const where = path.join(dir, 'viaNode');
    fs.mkdirSync(where);
    const init = await bash([`node ${CLI} init proj`], where, bareEnv);
    expect(init.code, init.stderr).toBe(0);
    const steps = nextSteps(init.stdout);
    const node = `node ${fs.realpathSync(CLI)}`;
    expect(steps).toEqual([
      'cd proj',
      `${node} validate`,
      `${node} demo marketplace-products`,
      `${node} status marketplace-products`,
    ]);
    const { cwd } = await runSteps(steps, where, bareEnv);
    expect(cwd).toBe(path.join(where, 'proj'));
  }, 400_000);

  it("demo outside a project with SCRAPE_ETL_DATA_DIR set: its next steps, run verbatim where it ran, read the demo's database", async () => {
    const plain = path.join(dir, 'plain');
    fs.mkdirSync(plain);
    const dataDir = path.join(dir, 'demo state');
    const demo = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'demo'], {
        cwd: plain,
        env: { ...env, SCRAPE_ETL_DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    try {
      expect(demo.code, demo.stderr).toBe(0);
      const steps = nextSteps(demo.stdout);
      // The demo's database is not the one `status` reads by default here (./data): the command names it, quoted.
      expect(steps[0]).toBe(`scrape-etl status --database 'sqlite:${path.join(dataDir, 'scrape-etl.sqlite')}'`);
      for (const step of steps) {
        // The shell that runs the steps has no SCRAPE_ETL_DATA_DIR: a new terminal, as a user's.
        const r = await bash([step], plain);
        expect({ step, code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ step, code: 0, stderr: '' });
        if (step.startsWith('scrape-etl status'))
          expect(r.stdout.split('\n').filter((l) => /\bSUCCEEDED\b/.test(l))).toHaveLength(6);
      }
    } finally {
      await stopDevServer({ dataDir });
    }
  }, 400_000);

  it('the status command demo prints: bare for the default database, else with --database, shell-quoted', async () => {
    delete process.env['DATABASE_URL'];
    const { nextStatusCommand } = await import('../../../cli/commands/demo.js');
    const elsewhere = path.join(dir, 'state', 'scrape-etl.sqlite');
    expect(await nextStatusCommand(`sqlite:${elsewhere}`, 'scrape-etl')).toBe(
      `scrape-etl status --database sqlite:${elsewhere}`,
    );
    expect(await nextStatusCommand(`sqlite:${path.resolve('data', 'scrape-etl.sqlite')}`, 'scrape-etl')).toBe(
      'scrape-etl status',
    );
    expect(await nextStatusCommand('sqlite:/tmp/with space/x.sqlite', 'npx scrape-etl')).toBe(
      "npx scrape-etl status --database 'sqlite:/tmp/with space/x.sqlite'",
    );
  });
});
