// The compiled command as a user runs it (`npm test` builds dist/ first): node bin/scrape-etl.js runs
// dist/cli/main.js, --version and --help answer without loading the heavy modules, an unknown command exits 2,
// and a compiled worker takes its workflow code from the bundle prebuilt by `npm run build`, never bundling at
// start (shown on a copy of the built package whose bundle file is removed or broken).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, runCli } from '../../support/cli.js';
import { spawnWorkerProcess, startTestTemporal, type TestTemporal } from '../../support/temporal.js';

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-build-'));

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * Runs the built command (or, with `cli` false, bare node with `args`) under a preload that reports, at exit, every
 * CommonJS module the process loaded: the heavy packages (Temporal SDK, pg, better-sqlite3, pino) and yaml,
 * tinyglobby and commander are CommonJS, so importing them from ESM goes through require's cache too.
 */
async function runWithModuleReport(
  args: string[],
  cwd: string,
  cli = true,
): Promise<{ code: number | null; stdout: string; stderr: string; loaded: string[] }> {
  const preload = path.join(tmp, 'report-modules.cjs');
  fs.writeFileSync(
    preload,
    "process.on('exit', () => process.stderr.write('MODULES ' + JSON.stringify(Object.keys(require.cache)) + '\\n'));\n",
  );
  const env = { ...process.env };
  delete env['DATABASE_URL'];
  delete env['SCRAPE_ETL_DATA_DIR'];
  const res = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', preload, ...(cli ? [CLI] : []), ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
  const line = res.stderr.split('\n').find((l) => l.startsWith('MODULES '));
  expect(line, res.stderr).toBeDefined();
  const loaded = JSON.parse(line!.slice('MODULES '.length)) as string[];
  // The preload itself is there, so the probe works.
  expect(loaded).toContain(preload);
  return {
    ...res,
    stderr: res.stderr
      .split('\n')
      .filter((l) => !l.startsWith('MODULES '))
      .join('\n'),
    loaded,
  };
}

describe('the built command', () => {
  it('bin/scrape-etl.js runs the compiled dist/, not TypeScript', () => {
    const bin = fs.readFileSync(CLI, 'utf8');
    expect(bin).toContain('../dist/cli/main.js');
    expect(fs.existsSync(path.join(REPO_ROOT, 'dist', 'cli', 'main.js'))).toBe(true);
    // The assets the runtime reads beside its modules are in dist/ too.
    expect(
      fs
        .readdirSync(path.join(REPO_ROOT, 'dist', 'destinations', 'sqlite', 'migrations'))
        .some((f) => f.endsWith('.sql')),
    ).toBe(true);
    expect(fs.readdirSync(path.join(REPO_ROOT, 'dist', 'pipelines', 'examples'))).toEqual(
      fs.readdirSync(path.join(REPO_ROOT, 'pipelines', 'examples')),
    );
  });

  it('--version and -V print the version from package.json', async () => {
    for (const flag of ['--version', '-V']) {
      const res = await runCli([flag]);
      expect(res).toMatchObject({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    }
  });

  it('--help lists every command and loads none of Temporal, the database drivers or pino', async () => {
    const res = await runWithModuleReport(['--help'], REPO_ROOT);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Usage: scrape-etl \[options\] \[command\]/);
    for (const command of ['demo', 'status', 'schedule', 'run', 'export', 'load', 'validate', 'simulate', 'worker']) {
      expect(res.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    const heavy = res.loaded.filter((m) => /node_modules\/(@temporalio|pg|better-sqlite3|pino|drizzle-orm)\//.test(m));
    expect(heavy).toEqual([]);
  });

  it('`status <name>` in a project takes yaml, tinyglobby and commander from the vendor bundles, no file of their packages', async () => {
    const project = path.join(tmp, 'project');
    fs.mkdirSync(path.join(project, 'pipelines'), { recursive: true });
    fs.writeFileSync(path.join(project, 'scrape-etl.yaml'), 'destination: sqlite:./data/shop.sqlite\n');
    const example = fs.readFileSync(path.join(REPO_ROOT, 'pipelines', 'examples', 'job-board.yaml'), 'utf8');
    fs.writeFileSync(path.join(project, 'pipelines', 'shop.yaml'), example.replace(/^name: .*$/m, 'name: shop'));
    const res = await runWithModuleReport(['status', 'shop'], project);
    // The name was looked up in the project (yaml and the glob at work): its database is the project's.
    expect(res.stdout + res.stderr).toContain(
      `no runs of 'shop' yet: its database sqlite:${path.join(project, 'data', 'shop.sqlite')} does not exist`,
    );
    const packages = res.loaded.filter((m) => /node_modules\/(yaml|tinyglobby|fdir|picomatch|commander)\//.test(m));
    expect(packages).toEqual([]);
    // Whereas the same command from the sources would load them: the probe sees the packages' CommonJS files.
    const direct = await runWithModuleReport(
      ['-e', "require('yaml'); require('tinyglobby'); require('commander')"],
      REPO_ROOT,
      false,
    );
    expect(
      direct.loaded.filter((m) => /node_modules\/(yaml|tinyglobby|fdir|picomatch|commander)\//.test(m)).length,
    ).toBeGreaterThan(20);
  });

  it('each vendor module exports the names its source re-exports, from its bundle, whose code cache V8 takes', async () => {
    const dir = path.join(REPO_ROOT, 'dist', 'vendor');
    for (const name of ['yaml', 'tinyglobby', 'commander']) {
      const source = (await import(`../../../vendor/${name}.ts`)) as Record<string, unknown>;
      const built = (await import(path.join(dir, `${name}.js`))) as Record<string, unknown>;
      expect(Object.keys(built).sort(), name).toEqual(Object.keys(source).sort());
      expect(
        fs.readFileSync(path.join(dir, `${name}.bundle.cjs`), 'utf8'),
        `${name}: the bundle still requires its package`,
      ).not.toMatch(new RegExp(`require\\(["']${name}["']\\)`));
    }
    const { parse } = (await import(path.join(dir, 'yaml.js'))) as { parse: (s: string) => unknown };
    expect(parse('a: [1, two]\nb: {c: true}\n')).toEqual({ a: [1, 'two'], b: { c: true } });
    // In a plain node process, as the command runs: V8 accepts each cache the build wrote (a rejected one would only
    // cost time, silently, so it is checked here).
    const res = await runWithModuleReport(
      [
        '--input-type=module',
        '-e',
        `import { loadBundle } from ${JSON.stringify(path.join(dir, 'load-bundle.js'))}; console.log(JSON.stringify(['yaml', 'tinyglobby', 'commander'].map((n) => loadBundle(n).cached)));`,
      ],
      REPO_ROOT,
      false,
    );
    expect(res.stdout.trim()).toBe('[true,true,true]');
  });

  it('a subcommand still describes its options', async () => {
    const res = await runCli(['worker', '--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('--task-queue <name>');
  });

  it('an unknown command exits 2 and says so, also as `help <unknown>`; `help <command>` is help', async () => {
    const res = await runCli(['no-such-command']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("unknown command 'no-such-command'");
    expect(res.stdout).toBe('');
    const help = await runCli(['help', 'no-such-command']);
    expect(help.code).toBe(2);
    expect(help.stderr).toContain("unknown command 'no-such-command'");
    const known = await runCli(['help', 'history']);
    expect(known.code).toBe(0);
    expect(known.stdout).toContain('Usage: scrape-etl history [options] <pipeline>');
  });
});

describe('a compiled worker and the prebuilt workflow bundle', () => {
  let temporal: TestTemporal;

  beforeAll(async () => {
    temporal = await startTestTemporal();
  });
  afterAll(async () => {
    await temporal?.stop();
  });

  /** The built package (bin, dist, package.json) copied elsewhere, with the repository's node_modules. */
  function copyOfBuiltPackage(name: string): string {
    const dir = path.join(tmp, name);
    fs.mkdirSync(dir);
    fs.cpSync(path.join(REPO_ROOT, 'bin'), path.join(dir, 'bin'), { recursive: true });
    fs.cpSync(path.join(REPO_ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(dir, 'package.json'));
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    return dir;
  }

  function runWorker(dir: string, taskQueue: string): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [path.join(dir, 'bin', 'scrape-etl.js'), 'worker', '--shutdown-grace', '1s'],
        {
          cwd: dir,
          env: {
            PATH: process.env['PATH'] ?? '',
            HOME: os.homedir(),
            TEMPORAL_ADDRESS: temporal.address,
            TEMPORAL_TASK_QUEUE: taskQueue,
            SCRAPE_ETL_WORKER_LOG_LEVEL: 'ERROR',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const onData = (b: Buffer) => {
        output += b.toString();
        // A worker that got as far as polling did not fail; stop it.
        if (output.includes('polling task queue')) child.kill('SIGTERM');
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('error', reject);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  }

  it('polls with the prebuilt dist/workflow-bundle.js', async () => {
    const worker = await spawnWorkerProcess({ address: temporal.address, taskQueue: 'build-prebuilt', env: {} });
    try {
      expect(worker.output()).toContain(
        `workflow bundle: prebuilt ${path.join(REPO_ROOT, 'dist', 'workflow-bundle.js')}`,
      );
      expect(worker.output()).not.toContain('bundled at start');
    } finally {
      await worker.kill('SIGTERM');
    }
  });

  it('reads that file: without it the worker refuses to start instead of bundling, and a broken one fails', async () => {
    const intact = copyOfBuiltPackage('intact');
    const ok = await runWorker(intact, 'build-copy-intact');
    expect(ok.output).toContain(`workflow bundle: prebuilt ${path.join(intact, 'dist', 'workflow-bundle.js')}`);
    expect(ok.output).toContain('polling task queue');

    const missing = copyOfBuiltPackage('missing');
    fs.rmSync(path.join(missing, 'dist', 'workflow-bundle.js'));
    const none = await runWorker(missing, 'build-copy-missing');
    expect(none.code).toBe(1);
    expect(none.output).toContain(
      `no prebuilt workflow bundle at ${path.join(missing, 'dist', 'workflow-bundle.js')}; run \`npm run build\``,
    );
    expect(none.output).not.toContain('polling task queue');

    const broken = copyOfBuiltPackage('broken');
    fs.writeFileSync(path.join(broken, 'dist', 'workflow-bundle.js'), 'this is not a workflow bundle {{{\n');
    const bad = await runWorker(broken, 'build-copy-broken');
    expect(bad.code).toBe(1);
    expect(bad.output).toContain('Workflow Bundle');
    expect(bad.output).not.toContain('polling task queue');
  });
});
