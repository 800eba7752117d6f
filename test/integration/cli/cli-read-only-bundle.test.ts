// The read-only commands (status, history, schema show, pipelines) run from the one-file bundles `npm run build` makes
// of them (scripts/cli-bundle.ts, cli/launch.ts): the built command answers exactly as the whole program does (the
// same stdout, stderr and exit code, in a project with runs recorded and on mistakes), loads no product module of
// its own but the entry's few (the rest runs inside the bundle, which says so to the module trace), loads no
// Temporal SDK, and V8 takes each bundle's code cache in a new process.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import { finishPipelineRun, startPipelineRun } from '../../../db/store/pipeline-runs.js';
import { REPO_ROOT, runCli, type CliResult } from '../../support/cli.js';

const DIST = path.join(REPO_ROOT, 'dist');
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-read-only-bundle-')));
const project = path.join(dir, 'project');
const env: NodeJS.ProcessEnv = {};
for (const name of ['SCRAPE_ETL_DATA_DIR', 'TEMPORAL_ADDRESS', 'DATABASE_URL', 'SCRAPE_ETL_PROJECT', 'NODE_OPTIONS'])
  env[name] = undefined;

/**
 * The product files Node's loaders loaded for a bundled command: the launcher bundle alone, required (bin/scrape-etl.js
 * is CommonJS, cli/launch.ts), and no ES module of the product; the entry's modules ran inside it and say so.
 */
function expectLauncherEntry(modules: string[]): void {
  const url = (f: string) => pathToFileURL(path.join(DIST, f)).href;
  const dist = `${pathToFileURL(DIST).href}/`;
  expect(modules.filter((m) => m.startsWith(dist))).toEqual([]);
  expect(modules.filter((m) => m.startsWith(`require:${dist}`))).toEqual([`require:${url('cli/launch.cjs')}`]);
  const ran = modules.filter((m) => m.startsWith('bundle:')).map((m) => m.slice('bundle:'.length));
  for (const f of ['cli/launch.js', 'cli/read-only-commands.js', 'cli/read-only-bundle.js', 'vendor/load-bundle.js'])
    expect(ran).toContain(url(f));
}

/** The same command run by the whole program (cli/run-cli.ts with every command module), never by the bundle. */
function runWholeProgram(args: string[], cwd: string): Promise<CliResult> {
  const driver =
    `const { runCli } = await import(${JSON.stringify(pathToFileURL(path.join(DIST, 'cli', 'run-cli.js')).href)});` +
    `const { COMMAND_MODULES } = await import(${JSON.stringify(pathToFileURL(path.join(DIST, 'cli', 'command-modules.js')).href)});` +
    `await runCli([process.argv[0], 'scrape-etl', ...process.argv.slice(1)], COMMAND_MODULES);`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', driver, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

beforeAll(async () => {
  fs.mkdirSync(path.join(project, 'pipelines'), { recursive: true });
  fs.mkdirSync(path.join(project, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(project, 'scrape-etl.yaml'), 'destination: sqlite:data/main.sqlite\n');
  const example = fs.readFileSync(path.join(REPO_ROOT, 'pipelines', 'examples', 'job-board.yaml'), 'utf8');
  fs.writeFileSync(path.join(project, 'pipelines', 'shop.yaml'), example.replace(/^name: .*$/m, 'name: shop'));
  fs.writeFileSync(
    path.join(project, 'pipelines', 'jobs.yaml'),
    example.replace(/^name: .*$/m, 'name: jobs').replace(/^schedule:.*$/m, '') +
      'schedule: { cron: "30 2 * * *", timezone: Europe/Berlin }\n',
  );
  fs.mkdirSync(path.join(project, 'data'));
  const db = await openDatabase(`sqlite:${path.join(project, 'data', 'main.sqlite')}`);
  try {
    const t0 = Date.parse('2026-01-02T03:04:05.000Z');
    for (const [i, status] of (['succeeded', 'failed', 'partial'] as const).entries()) {
      const workflowId = `bundle-test-${i}`;
      await startPipelineRun(db, {
        workflowId,
        pipeline: 'shop',
        kind: 'job-board',
        startedAt: new Date(t0 + i * 60_000),
      });
      await finishPipelineRun(db, {
        workflowId,
        status,
        finishedAt: new Date(t0 + i * 60_000 + 1234),
        rowsByTable: { job_records: 3 + i },
        seenByTable: { job_records: 5 },
        tokenUsage: 100 + i,
        ...(status === 'failed' ? { error: 'the service answered 401: token rejected' } : {}),
      });
    }
  } finally {
    await db.close();
  }
}, 60_000);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the read-only bundle', () => {
  it.each(['read-only', 'pipelines', 'export'])(
    'the %s bundle is built beside the compiled cli/ with its code cache, which V8 takes in a new process',
    async (name) => {
      expect(fs.existsSync(path.join(DIST, 'cli', `${name}.bundle.cjs`)), 'run `npm run build` first').toBe(true);
      expect(fs.statSync(path.join(DIST, 'cli', `${name}.bundle.cache`)).size).toBeGreaterThan(0);
      const probe =
        `const { loadBundle } = await import(${JSON.stringify(pathToFileURL(path.join(DIST, 'vendor', 'load-bundle.js')).href)});` +
        `const b = loadBundle(${JSON.stringify(name)}, ${JSON.stringify(path.join(DIST, 'cli'))});` +
        `process.stdout.write(JSON.stringify({ cached: b.cached, main: typeof b.exports.main }));`;
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', probe], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let s = '';
        child.stdout.on('data', (d: Buffer) => (s += d.toString()));
        child.on('error', reject);
        child.on('close', () => resolve(s));
      });
      expect(JSON.parse(out)).toEqual({ cached: true, main: 'function' });
    },
  );

  it("the pipelines bundle holds zod's English locale alone, the one zod words its issues in here", () => {
    // esbuild names each bundled module by its path, so the locales that are in the bundle can be read off it.
    const source = fs.readFileSync(path.join(DIST, 'cli', 'pipelines.bundle.cjs'), 'utf8');
    const locales = [...new Set([...source.matchAll(/zod\/v4\/locales\/([\w-]+)\.js/g)].map((m) => m[1]))].sort();
    expect(locales).toEqual(['en', 'index']);
  });

  const cases: Array<{ args: string[]; cwd: string }> = [
    { args: ['status', 'shop'], cwd: 'sub' },
    { args: ['status', 'shop', '--json'], cwd: 'sub' },
    { args: ['status', '--limit', '2'], cwd: '.' },
    { args: ['history', 'shop'], cwd: 'sub' },
    { args: ['history', 'shop', '--json'], cwd: '.' },
    { args: ['schema', 'show', 'shop'], cwd: 'sub' },
    { args: ['schema', 'show', 'shop', '--json'], cwd: '.' },
    { args: ['pipelines'], cwd: 'sub' },
    { args: ['pipelines', '--json'], cwd: '.' },
    // Mistakes: an unknown pipeline, an unknown option, a missing argument.
    { args: ['status', 'nosuch'], cwd: '.' },
    { args: ['history', 'nosuch'], cwd: '.' },
    { args: ['schema', 'show', 'nosuch'], cwd: '.' },
    { args: ['status', '--bogus'], cwd: '.' },
    { args: ['schema', 'show'], cwd: '.' },
    { args: ['pipelines', 'extra'], cwd: '.' },
  ];
  it.each(cases)('`$args` answers as the whole program does', async ({ args, cwd }) => {
    const at = path.join(project, cwd);
    const [bundled, whole] = await Promise.all([runCli(args, { cwd: at, env }), runWholeProgram(args, at)]);
    expect(bundled.stdout, bundled.stderr).toBe(whole.stdout);
    expect(bundled.stderr).toBe(whole.stderr);
    expect(bundled.code).toBe(whole.code);
  });

  it('`export` writes the same file and says the same as the whole program, loading neither drizzle nor the Temporal SDK', async () => {
    const trace = path.join(dir, 'trace-export.txt');
    const args = (out: string) => [
      'export',
      '--pipeline',
      'shop',
      '--tables',
      'pipeline_runs',
      '--file-name',
      'runs.csv',
      '--out',
      path.join(dir, out),
    ];
    const at = path.join(project, 'sub');
    const [bundled, whole] = await Promise.all([
      runCli(args('bundled'), {
        cwd: at,
        env: {
          ...env,
          SCRAPE_ETL_MODULE_TRACE: trace,
          NODE_OPTIONS: `--import ${path.join(REPO_ROOT, 'test', 'support', 'module-trace.mjs')}`,
        },
      }),
      runWholeProgram(args('whole'), at),
    ]);
    expect(bundled.code, bundled.stderr).toBe(0);
    expect(bundled.stdout.replaceAll(path.join(dir, 'bundled'), '<out>')).toBe(
      whole.stdout.replaceAll(path.join(dir, 'whole'), '<out>'),
    );
    expect(bundled.stdout).toMatch(/^pipeline_runs: 3 rows -> /);
    expect(bundled.stderr).toBe(whole.stderr);
    expect(bundled.code).toBe(whole.code);
    expect(fs.readFileSync(path.join(dir, 'bundled', 'runs.csv'))).toEqual(
      fs.readFileSync(path.join(dir, 'whole', 'runs.csv')),
    );
    const modules = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    const url = (f: string) => pathToFileURL(path.join(DIST, f)).href;
    expectLauncherEntry(modules);
    const ran = modules.filter((m) => m.startsWith('bundle:')).map((m) => m.slice('bundle:'.length));
    expect(ran).toContain(url('cli/commands/export.js'));
    // A current SQLite file is opened with better-sqlite3 alone (destinations/sqlite/open-current.ts).
    expect(ran).not.toContain(url('destinations/sqlite/open.js'));
    expect(modules.filter((m) => /@temporalio|@grpc|drizzle-orm|\/pg\//.test(m))).toEqual([]);
  });

  it('a read-only command loads only the entry modules of the product and no Temporal SDK; its own modules run inside the bundle', async () => {
    for (const args of [['status', 'shop'], ['history', 'shop'], ['schema', 'show', 'shop'], ['pipelines']]) {
      const trace = path.join(dir, `trace-${args.join('-')}.txt`);
      const r = await runCli(args, {
        cwd: project,
        env: {
          ...env,
          SCRAPE_ETL_MODULE_TRACE: trace,
          NODE_OPTIONS: `--import ${path.join(REPO_ROOT, 'test', 'support', 'module-trace.mjs')}`,
        },
      });
      expect(r.code, r.stderr).toBe(0);
      const modules = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean);
      const url = (f: string) => pathToFileURL(path.join(DIST, f)).href;
      // Loaded as files by Node's loaders: the launcher alone (unbundled, the same command loaded dozens).
      expectLauncherEntry(modules);
      // Run inside the bundle: the program and this command's module; the whole program's list never ran.
      const ran = modules.filter((m) => m.startsWith('bundle:')).map((m) => m.slice('bundle:'.length));
      const command = url(`cli/commands/${args[0]!}.js`);
      expect(ran).toContain(url('cli/run-cli.js'));
      expect(ran).toContain(command);
      // (history prints with status's helpers: a read-only command may import another's module, never a writer's.)
      for (const m of ran.filter((x) => x.includes('/dist/cli/commands/')))
        expect(['status', 'history', 'schema', 'pipelines'].map((c) => url(`cli/commands/${c}.js`))).toContain(m);
      expect(ran).not.toContain(url('cli/command-modules.js'));
      expect(modules.filter((m) => /@temporalio|@grpc|drizzle-orm|\/pg\//.test(m))).toEqual([]);
    }
  });

  it('a read-only command requires no module it does not use: node:crypto, node:child_process, cron-parser and lossless-json wait for their first use, better-sqlite3 runs inside the bundle', async () => {
    // Node's own record of the built-in modules it loaded and the CommonJS files required, written at exit.
    const preload = path.join(dir, 'loaded.cjs');
    fs.writeFileSync(
      preload,
      "process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED_FILE, JSON.stringify({ builtins: process.moduleLoadList, required: Object.keys(require.cache) })));\n",
    );
    for (const args of [['status', 'shop'], ['history', 'shop'], ['schema', 'show', 'shop'], ['pipelines']]) {
      const out = path.join(dir, `loaded-${args.join('-')}.json`);
      const r = await runCli(args, {
        cwd: project,
        env: { ...env, LOADED_FILE: out, NODE_OPTIONS: `--require ${preload}` },
      });
      expect(r.code, r.stderr).toBe(0);
      const { builtins, required } = JSON.parse(fs.readFileSync(out, 'utf8')) as {
        builtins: string[];
        required: string[];
      };
      expect(builtins, args.join(' ')).not.toContain('NativeModule crypto');
      expect(builtins, args.join(' ')).not.toContain('NativeModule child_process');
      // better-sqlite3's addon is loaded (the commands read SQLite), its JavaScript is the bundle's.
      expect(required.filter((f) => f.includes('/better-sqlite3/')).map((f) => path.basename(f))).toEqual([
        'better_sqlite3.node',
      ]);
      expect(required.filter((f) => f.includes('/node_modules/lossless-json/'))).toEqual([]);
      // `pipelines` checks the schedule of jobs.yaml with cron-parser (in its bundle); the others never need it.
      if (args[0] !== 'pipelines')
        expect(required.filter((f) => /\/node_modules\/(cron-parser|luxon)\//.test(f))).toEqual([]);
    }
  });
});
