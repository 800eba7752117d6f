// A real Temporal server (the `server` binary of go.temporal.io/server, the version pinned in
// scripts/temporal-server.version) on a throwaway Postgres cluster of its own: the production topology of
// docker-compose.yml, on free 127.0.0.1 ports. The schemas are created with the server's own `sql` tool from the
// module's schema files, the config is the module's config/development-postgres12.yaml with addresses and ports
// replaced, and namespace `default` plus scrape-etl's search attributes are registered as an operator would.
// The server can be killed (SIGKILL) and started again on the same database and ports.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import protoPkg from '@temporalio/proto';
import YAML from 'yaml';
import { SEARCH_ATTRIBUTE_NAMES } from '../../temporal/contract.js';
import { startPostgresCluster, type PostgresCluster } from './postgres.js';
import { ephemeralPortFloor, freePortSet } from '../../lib/free-port.js';
import { pipelineDataConverter } from '../../temporal/payload-codec.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The one pinned server version (also docker-compose.yml's temporalio/auto-setup tag; test/integration/deploy/compose.test.ts). */
export const TEMPORAL_SERVER_VERSION = fs
  .readFileSync(path.join(repoRoot, 'scripts', 'temporal-server.version'), 'utf8')
  .trim();

/** The folder holding `server` and `sql`: $TEMPORAL_SERVER_BIN_DIR, else scripts/ensure-temporal-server.sh (builds once). */
export function temporalServerBinDir(): string {
  const fromEnv = process.env['TEMPORAL_SERVER_BIN_DIR']?.trim();
  if (fromEnv) return fromEnv;
  const started = Date.now();
  const res = spawnSync('bash', [path.join(repoRoot, 'scripts', 'ensure-temporal-server.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 30 * 60_000,
  });
  if (res.status !== 0)
    throw new Error(`scripts/ensure-temporal-server.sh failed (exit ${res.status}) after ${Date.now() - started} ms`);
  const dir = res.stdout.trim().split('\n').pop()!;
  process.env['TEMPORAL_SERVER_BIN_DIR'] = dir;
  return dir;
}

/** The go.temporal.io/server module source in the Go module cache: schema files and the development config. */
export function temporalServerModuleDir(): string {
  const modCache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const dir = path.join(modCache, 'go.temporal.io', `server@v${TEMPORAL_SERVER_VERSION}`);
  if (!fs.existsSync(path.join(dir, 'schema', 'postgresql', 'v12'))) {
    throw new Error(`the Temporal server module source is not in ${dir}; run scripts/ensure-temporal-server.sh`);
  }
  return dir;
}

export interface RealTemporal {
  address: string;
  client: Client;
  connection: Connection;
  /** The Postgres cluster holding the `temporal` and `temporal_visibility` databases. */
  postgres: PostgresCluster;
  dir: string;
  logFile: string;
  pid(): number | undefined;
  /** SIGKILLs the server (no shutdown at all), waits `downMs`, starts it again on the same database and ports. */
  killAndRestart(opts?: { downMs?: number }): Promise<{ downMs: number; readyMs: number }>;
  /** The last lines of the server's log (for failure messages). */
  logTail(lines?: number): string;
  /** Stops the server and its Postgres; `keepLogs` leaves the folder with the server's log and config in place. */
  stop(opts?: { keepLogs?: boolean }): Promise<void>;
}

const SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;

function sqlTool(bin: string, port: number, database: string, args: string[], logFile: string): void {
  const res = spawnSync(
    path.join(bin, 'sql'),
    [
      '--plugin',
      'postgres12',
      '--endpoint',
      '127.0.0.1',
      '--port',
      String(port),
      '--user',
      'postgres',
      '--password',
      '',
      '--database',
      database,
      ...args,
    ],
    { encoding: 'utf8' },
  );
  fs.appendFileSync(logFile, `$ sql --database ${database} ${args.join(' ')}\n${res.stdout}${res.stderr}\n`);
  if (res.status !== 0)
    throw new Error(
      `temporal sql tool failed (${database} ${args.join(' ')}, exit ${res.status}):\n${res.stdout}${res.stderr}`,
    );
}

/**
 * A free port below 32768. Temporal's SQL schemas store a service's port in a SMALLINT (cluster_membership.rpc_port),
 * so a port of 32768 and up makes the server exit at start ("value out of range for type smallint").
 */
function freeLowPort(taken: Set<number>): Promise<number> {
  return freePortSet([0], { taken, floor: Math.min(32768, ephemeralPortFloor()) });
}

/** Thrown by a waitFor probe: stop waiting at once (the awaited thing can no longer happen). */
export class Fatal extends Error {}

/** Polls `probe` every `everyMs` until it returns a value; on timeout the error ends with `onTimeout()` (log tails). */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined> | T | undefined,
  onTimeout: () => string,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      if (err instanceof Fatal) throw new Error(`${err.message} while waiting for ${what}\n${onTimeout()}`);
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}: ${(last as Error | undefined)?.message ?? ''}\n${onTimeout()}`,
      );
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function startRealTemporal(opts: { namespace?: string } = {}): Promise<RealTemporal> {
  const namespace = opts.namespace ?? 'default';
  const bin = temporalServerBinDir();
  const moduleDir = temporalServerModuleDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-temporal-server-'));
  const logFile = path.join(dir, 'server.log');
  // Durable commits, as a production database has: the topology test restarts this cluster too (immediate stop).
  const postgres = await startPostgresCluster({ crashSafe: true });

  // Schemas, exactly as an operator sets them up: create the database, the version table, then every versioned step.
  const schemaRoot = path.join(moduleDir, 'schema', 'postgresql', 'v12');
  for (const [db, sub] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    sqlTool(bin, postgres.port, db, ['create-database'], logFile);
    sqlTool(bin, postgres.port, db, ['setup-schema', '-v', '0.0'], logFile);
    sqlTool(bin, postgres.port, db, ['update-schema', '-d', path.join(schemaRoot, sub, 'versioned')], logFile);
  }

  // The module's development-postgres12.yaml with this cluster's address and free ports (all on 127.0.0.1).
  const config = YAML.parse(
    fs.readFileSync(path.join(moduleDir, 'config', 'development-postgres12.yaml'), 'utf8'),
  ) as Record<string, any>;
  for (const store of Object.values(
    config['persistence'].datastores as Record<string, { sql: Record<string, unknown> }>,
  )) {
    Object.assign(store.sql, { connectAddr: `127.0.0.1:${postgres.port}`, user: 'postgres', password: '' });
  }
  const ports: Record<string, number> = {};
  const taken = new Set<number>();
  for (const svc of SERVICES) {
    const rpc = config['services'][svc].rpc as Record<string, unknown>;
    rpc['grpcPort'] = ports[svc] = await freeLowPort(taken);
    rpc['membershipPort'] = await freeLowPort(taken);
    if ('httpPort' in rpc) rpc['httpPort'] = await freeLowPort(taken);
    rpc['bindOnLocalHost'] = true;
  }
  delete config['global'].pprof;
  config['global'].metrics.prometheus.listenAddress = `127.0.0.1:${await freeLowPort(taken)}`;
  const address = `127.0.0.1:${ports['frontend']}`;
  config['clusterMetadata'].clusterInformation.active.rpcAddress = address;
  // Archival is not part of the tested topology (and would write under /tmp/temporal_archival).
  config['archival'] = { history: { state: 'disabled' }, visibility: { state: 'disabled' } };
  delete config['namespaceDefaults'];
  // The module's SQL dynamic config, as it is.
  const dynamic =
    YAML.parse(fs.readFileSync(path.join(moduleDir, 'config', 'dynamicconfig', 'development-sql.yaml'), 'utf8')) ?? {};
  const dynamicFile = path.join(dir, 'dynamicconfig.yaml');
  fs.writeFileSync(dynamicFile, YAML.stringify(dynamic));
  config['dynamicConfigClient'] = { filepath: dynamicFile, pollInterval: '10s' };
  const configDir = path.join(dir, 'config');
  fs.mkdirSync(configDir);
  fs.writeFileSync(path.join(configDir, 'scrape-etl-test.yaml'), YAML.stringify(config));

  let child: ChildProcess | undefined;
  // A watchdog kills the server (whichever pid it has after restarts) once this process is gone, even after a
  // SIGKILL of the test process, when no exit handler runs.
  const pidFile = path.join(dir, 'server.pid');
  spawn(
    'sh',
    [
      '-c',
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; kill -9 $(cat '${pidFile}' 2>/dev/null) 2>/dev/null`,
    ],
    {
      detached: true,
      stdio: 'ignore',
    },
  ).unref();
  let exited: Promise<void> = Promise.resolve();
  // Its last lines, each cut to 600 characters (the server logs JSON with whole stack traces).
  const logTail = (lines = 25) =>
    fs.existsSync(logFile)
      ? `--- ${logFile} (tail) ---\n` +
        fs
          .readFileSync(logFile, 'utf8')
          .split('\n')
          .slice(-lines)
          .map((l) => l.slice(0, 600))
          .join('\n')
      : '';
  const launch = () => {
    const out = fs.openSync(logFile, 'a');
    child = spawn(
      path.join(bin, 'server'),
      ['--root', dir, '--config', 'config', '--env', 'scrape-etl-test', '--allow-no-auth', 'start'],
      {
        cwd: dir,
        stdio: ['ignore', out, out],
      },
    );
    fs.closeSync(out);
    fs.writeFileSync(pidFile, String(child.pid));
    const c = child;
    exited = new Promise((resolve) => c.once('exit', () => resolve()));
  };

  const connection = await (async () => {
    launch();
    return waitFor(
      'the Temporal frontend to accept connections',
      90_000,
      async () => {
        if (child?.exitCode !== null && child?.exitCode !== undefined)
          throw new Fatal(`the server exited with ${child.exitCode}`);
        const c = await Connection.connect({ address, connectTimeout: '2s' });
        try {
          await c.workflowService.getSystemInfo({});
        } catch (err) {
          await c.close().catch(() => {});
          throw err;
        }
        return c;
      },
      logTail,
    );
  })();

  // What an operator does once: the namespace, then the search attributes scrape-etl sets on its runs.
  const register = async () => {
    await waitFor(
      `namespace ${namespace}`,
      60_000,
      async () => {
        try {
          await connection.workflowService.registerNamespace({
            namespace,
            workflowExecutionRetentionPeriod: msToTs('1 day'),
          });
        } catch (err) {
          if (!/already exists|AlreadyExists/i.test((err as Error).message)) throw err;
        }
        // Usable once the frontend's namespace registry knows it.
        await connection.workflowService.countWorkflowExecutions({ namespace, query: '' });
        return true;
      },
      logTail,
    );
    await waitFor(
      'search attributes',
      60_000,
      async () => {
        const have = await connection.operatorService.listSearchAttributes({ namespace });
        const missing = Object.values(SEARCH_ATTRIBUTE_NAMES).filter((n) => !(n in (have.customAttributes ?? {})));
        if (missing.length === 0) return true;
        await connection.operatorService.addSearchAttributes({
          namespace,
          searchAttributes: Object.fromEntries(
            missing.map((n) => [n, protoPkg.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
          ),
        });
        return undefined;
      },
      logTail,
    );
  };
  await register();

  const client = new Client({ connection, namespace, dataConverter: pipelineDataConverter() });
  const t: RealTemporal = {
    address,
    client,
    connection,
    postgres,
    dir,
    logFile,
    pid: () => child?.pid,
    logTail,
    async killAndRestart(o = {}) {
      const t0 = Date.now();
      child?.kill('SIGKILL');
      await exited;
      fs.appendFileSync(logFile, `\n==== test: server SIGKILLed; restarting ====\n`);
      if (o.downMs) await new Promise((r) => setTimeout(r, o.downMs));
      const t1 = Date.now();
      launch();
      await waitFor(
        'the restarted Temporal frontend',
        90_000,
        async () => {
          if (child?.exitCode !== null && child?.exitCode !== undefined)
            throw new Fatal(`the server exited with ${child.exitCode}`);
          await connection.workflowService.getSystemInfo({});
          await connection.workflowService.countWorkflowExecutions({ namespace, query: '' });
          return true;
        },
        logTail,
      );
      return { downMs: Date.now() - t0, readyMs: Date.now() - t1 };
    },
    async stop(o = {}) {
      await connection.close().catch(() => {});
      if (child && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child?.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      postgres.stop();
      if (o.keepLogs) console.error(`Temporal server log and config kept in ${dir}`);
      else fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  // The server must not outlive the test process, even when the process dies without cleaning up.
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);
  return t;
}
