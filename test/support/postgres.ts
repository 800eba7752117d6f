// A real Postgres server for tests. TEST_POSTGRES_URL points at an existing server; otherwise one throwaway
// server is started per test process (initdb + pg_ctl from the Debian packages) and stopped when the process
// ends. Every call returns a fresh database on it, so test files and tests never see each other's tables.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePortSet } from '../../lib/free-port.js';

const PG_BIN = process.env['TEST_POSTGRES_BIN'] ?? '/usr/lib/postgresql/15/bin';

let serverUrl: Promise<string> | undefined;

export async function testPostgresUrl(): Promise<string> {
  serverUrl ??= process.env['TEST_POSTGRES_URL'] ? Promise.resolve(process.env['TEST_POSTGRES_URL']) : startServer();
  const base = await serverUrl;
  const name = `t_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A free port for a server process to bind (below the ephemeral range: lib/free-port.ts says why). */
export function freePort(): Promise<number> {
  return freePortSet([0]);
}

/**
 * initdb writes the same 39 MB cluster every time and is most of a cluster's start: one cluster is initialized per
 * machine, user and Postgres build (in the temp folder, renamed into place whole so a concurrent test process never
 * sees half of it), and every cluster starts from a copy of it.
 */
function copyTemplateCluster(
  dataDir: string,
  run: (cmd: string, args: string[]) => void,
  wrap: (cmd: string, args: string[]) => [string, string[]],
): void {
  const key = crypto.createHash('sha256').update(PG_BIN).digest('hex').slice(0, 12);
  const template = path.join(os.tmpdir(), `scrape-etl-pg-template-${process.getuid?.() ?? 'u'}-${key}`);
  if (!fs.existsSync(path.join(template, 'PG_VERSION'))) {
    const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-pg-template-staging-'));
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', staging]);
    const stagedData = path.join(staging, 'data');
    run('initdb', ['-D', stagedData, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    try {
      fs.renameSync(stagedData, template);
    } catch (err) {
      // Another test process renamed its copy first: use that one.
      if (!fs.existsSync(path.join(template, 'PG_VERSION'))) throw err;
    }
    fs.rmSync(staging, { recursive: true, force: true });
  }
  // cp -a keeps the owner (the postgres user when run as root) and initdb's 0700 modes, which the server checks.
  const [c, a] = wrap('cp', ['-a', template, dataDir]);
  execFileSync(c, a);
}

async function startServer(): Promise<string> {
  return (await startPostgresCluster()).url;
}

export interface PostgresCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication). */
  url: string;
  port: number;
  dir: string;
  logFile: string;
  /** Stops the server (immediate mode: no checkpoint, like a crash) and starts it again on the same data and port. */
  restart(opts?: { downMs?: number }): Promise<void>;
  stop(): void;
}

/**
 * A throwaway Postgres cluster of its own (initdb + pg_ctl), stopped and removed when this process exits (or, after
 * a SIGKILL, by a watchdog). Tests that need to restart a database start one of these rather than share the
 * per-process server above. `crashSafe` keeps synchronous_commit on: an immediate stop (restart()) then loses no
 * acknowledged commit. (fsync stays off either way: only the server process stops, the machine's page cache stays.)
 */
export async function startPostgresCluster(opts: { crashSafe?: boolean } = {}): Promise<PostgresCluster> {
  for (const bin of ['initdb', 'pg_ctl']) {
    if (!fs.existsSync(path.join(PG_BIN, bin))) {
      throw new Error(
        `Postgres binaries not found: ${path.join(PG_BIN, bin)} is missing (install postgresql-15 or set TEST_POSTGRES_URL)`,
      );
    }
  }
  const asRoot = process.getuid?.() === 0;
  // initdb refuses to run as root, so as root the server runs as the `postgres` user in a directory it owns.
  const wrap = (cmd: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-pg-'));
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const port = await freePort();

  const run = (cmd: string, args: string[]) => {
    const [c, a] = wrap(path.join(PG_BIN, cmd), args);
    const res = spawnSync(c, a, { encoding: 'utf8' });
    if (res.status !== 0) {
      const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2000) : '';
      throw new Error(`${cmd} failed (exit ${res.status}): ${res.stderr || res.stdout || res.error?.message}\n${log}`);
    }
  };
  const startArgs = [
    'start',
    '-D',
    dataDir,
    '-l',
    logFile,
    '-w',
    '-t',
    '60',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=${opts.crashSafe ? 'on' : 'off'} -c full_page_writes=off -c max_connections=200`,
  ];
  copyTemplateCluster(dataDir, run, wrap);
  run('pg_ctl', startArgs);

  const stopArgs = ['stop', '-D', dataDir, '-m', 'immediate'];
  const [stopCmd, stopCmdArgs] = wrap(path.join(PG_BIN, 'pg_ctl'), stopArgs);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    spawnSync(stopCmd, stopCmdArgs, { stdio: 'ignore' });
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  // A watchdog outlives this process only until it notices the process is gone (even after SIGKILL, where no
  // exit handler runs), then stops the server and removes its files.
  const quoted = [stopCmd, ...stopCmdArgs].map((s) => `'${s.replace(/'/g, `'\\''`)}'`).join(' ');
  const watchdog = spawn(
    'sh',
    ['-c', `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${quoted} >/dev/null 2>&1; rm -rf '${dir}'`],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    logFile,
    async restart(opts = {}) {
      run('pg_ctl', stopArgs);
      if (opts.downMs) await new Promise((r) => setTimeout(r, opts.downMs));
      run('pg_ctl', startArgs);
    },
    stop,
  };
}
