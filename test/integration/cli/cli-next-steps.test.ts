// Every "next:" command the product prints is run as printed (compiled CLI, `npm run build` first): `init` in a new
// folder, then each of its next steps verbatim through bash with `scrape-etl` on PATH, among them `demo` (the
// simulator, the embedded Temporal server, the six example pipelines), whose own next steps are then run verbatim
// in turn. Each must exit 0; `status` must show the demo's runs, which live in the project's data folder. And the
// case of the issue: demo with SCRAPE_ETL_DATA_DIR set, whose printed `status` must read that folder's database.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { stopDevServer } from '../../../temporal/dev-server.js';
import { CLI } from '../../support/cli.js';

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-next-steps-')));
const binDir = path.join(dir, 'bin');
fs.mkdirSync(binDir);
fs.symlinkSync(CLI, path.join(binDir, 'scrape-etl'));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  NO_COLOR: '1',
  PATH: `${binDir}${path.delimiter}${process.env['PATH'] ?? ''}`,
};
for (const name of ['SCRAPER_API_TOKEN', 'SCRAPER_BASE_URL', 'SCRAPE_ETL_DATA_DIR', 'TEMPORAL_ADDRESS', 'DATABASE_URL', 'SCRAPE_ETL_PROJECT']) delete env[name];

afterAll(async () => {
  await stopDevServer({ dataDir: path.join(dir, 'proj', 'data') });
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
function bash(lines: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string; cwd: string }> {
  const marker = `__cwd_${process.pid}__`;
  const script = `set -e\n${lines.join('\n')}\necho "${marker}$PWD"\n`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

describe('printed next steps', () => {
  it("init's and demo's next steps run verbatim and succeed", async () => {
    const init = await bash(['scrape-etl init proj'], dir);
    expect(init.code, init.stderr).toBe(0);
    const steps = nextSteps(init.stdout);
    expect(steps).toContain('scrape-etl demo');
    let cwd = dir;
    let demoOut = '';
    for (const step of steps) {
      const r = await bash([`cd ${JSON.stringify(cwd)}`, step], cwd);
      expect({ step, code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ step, code: 0, stderr: '' });
      cwd = r.cwd;
      if (step === 'scrape-etl demo') demoOut = r.stdout;
      if (step.startsWith('scrape-etl status')) expect(r.stdout).toMatch(/marketplace-products\s+SUCCEEDED/);
    }
    expect(cwd).toBe(path.join(dir, 'proj'));

    // The demo wrote into the project's data folder, and its next steps work from where it ran.
    expect(fs.existsSync(path.join(dir, 'proj', 'data', 'scrape-etl.sqlite'))).toBe(true);
    const demoSteps = nextSteps(demoOut);
    expect(demoSteps).toEqual(['scrape-etl status', 'scrape-etl init my-project']);
    for (const step of demoSteps) {
      const r = await bash([step], cwd);
      expect({ step, code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ step, code: 0, stderr: '' });
      if (step === 'scrape-etl status') expect(r.stdout.split('\n').filter((l) => /\bSUCCEEDED\b/.test(l))).toHaveLength(6);
    }
  }, 400_000);

  it("demo outside a project with SCRAPE_ETL_DATA_DIR set: its next steps, run verbatim where it ran, read the demo's database", async () => {
    const plain = path.join(dir, 'plain');
    fs.mkdirSync(plain);
    const dataDir = path.join(dir, 'demo state');
    const demo = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'demo'], { cwd: plain, env: { ...env, SCRAPE_ETL_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
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
        if (step.startsWith('scrape-etl status')) expect(r.stdout.split('\n').filter((l) => /\bSUCCEEDED\b/.test(l))).toHaveLength(6);
      }
    } finally {
      await stopDevServer({ dataDir });
    }
  }, 400_000);

  it('the status command demo prints: bare for the default database, else with --database, shell-quoted', async () => {
    delete process.env['DATABASE_URL'];
    const { nextStatusCommand } = await import('../../../cli/commands/demo.js');
    const elsewhere = path.join(dir, 'state', 'scrape-etl.sqlite');
    expect(await nextStatusCommand(`sqlite:${elsewhere}`)).toBe(`scrape-etl status --database sqlite:${elsewhere}`);
    expect(await nextStatusCommand(`sqlite:${path.resolve('data', 'scrape-etl.sqlite')}`)).toBe('scrape-etl status');
    expect(await nextStatusCommand('sqlite:/tmp/with space/x.sqlite')).toBe("scrape-etl status --database 'sqlite:/tmp/with space/x.sqlite'");
  });
});
