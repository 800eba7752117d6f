// One way for every command to reach Temporal: TEMPORAL_ADDRESS when set, else the embedded dev server under the
// data folder (started or reused).
import { Client, Connection } from '@temporalio/client';
import { liveUp } from '../cli/up/paths.js';
import { secretKeys } from '../lib/secret-key.js';
import { pipelineDataConverter } from './payload-codec.js';
import { canConnect, ensureDevServer, isProcessAlive, readDevServerState, releaseDevServer } from './dev-server.js';
import { temporalConnectionSecurity, temporalSettings, type TemporalSettings } from './settings.js';

export interface TemporalConnection {
  client: Client;
  connection: Connection;
  namespace: string;
  taskQueue: string;
  /** Web UI of the embedded server; undefined for an external cluster (its UI address is not known here). */
  uiUrl: string | undefined;
  embedded: boolean;
  address: string;
  /**
   * Called by the command when it ends (after closing the connection): stops the embedded server when this command
   * asked for it `transient` and it is the last to use a server such a command started (temporal/dev-server.ts).
   */
  releaseServer?: () => Promise<boolean>;
}

export interface ConnectOptions {
  settings?: TemporalSettings;
  log?: (message: string) => void;
  /** The command needs the embedded server only while it runs: see DevServerOptions.transient. */
  transient?: boolean;
}

export async function connectTemporal(opts: ConnectOptions = {}): Promise<TemporalConnection> {
  const settings = opts.settings ?? temporalSettings();
  // Every client and worker encrypts with the key file: one another user controls is refused (lib/owned-path.ts)
  // before a server is started in a data folder it would not be used with.
  secretKeys();
  let address = settings.address;
  let uiUrl: string | undefined;
  // A dev server this command has just started accepts TCP before it serves gRPC (it registers its namespace and
  // search attributes first), which can outlast the usual 10 s on a loaded machine (docs/measurements.md): the
  // connection to it gets the server's own start budget instead.
  let connectTimeout = '10s';
  if (address === undefined) {
    const server = await ensureDevServer({
      dataDir: settings.dataDir,
      namespace: settings.namespace,
      ...(opts.log ? { log: opts.log } : {}),
      ...(opts.transient ? { transient: true } : {}),
    });
    address = server.address;
    uiUrl = server.uiUrl;
    if (server.started) connectTimeout = '60s';
  }
  // A server an `up` of the data folder works on (it may have started meanwhile, on the server a command started) is
  // left to `up`, which stops it when it stops.
  const releaseServer =
    settings.address === undefined && opts.transient
      ? () => releaseDevServer({ dataDir: settings.dataDir, inUse: () => liveUp(settings.dataDir) !== undefined })
      : undefined;
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, connectTimeout, ...temporalConnectionSecurity(settings) });
  } catch (err) {
    await releaseServer?.().catch(() => false);
    throw new Error(
      `cannot connect to Temporal at ${address}${settings.address ? ' (TEMPORAL_ADDRESS)' : ' (embedded dev server)'}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  return { ...connectionTo(settings, connection, address, uiUrl), ...(releaseServer ? { releaseServer } : {}) };
}

function connectionTo(
  settings: TemporalSettings,
  connection: Connection,
  address: string,
  uiUrl: string | undefined,
): TemporalConnection {
  return {
    client: new Client({ connection, namespace: settings.namespace, dataConverter: pipelineDataConverter() }),
    connection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    uiUrl,
    embedded: settings.address === undefined,
    address,
  };
}

/**
 * For commands that only read (status): Temporal as it is, never started. TEMPORAL_ADDRESS is connected to; the
 * embedded dev server only when it already runs (its state file names a live pid whose port accepts connections).
 * Otherwise `notAsked` says why Temporal was not asked, and nothing was started or written.
 */
export async function connectRunningTemporal(
  settings: TemporalSettings = temporalSettings(),
): Promise<{ conn: TemporalConnection } | { notAsked: string }> {
  secretKeys(); // as in connectTemporal
  let address = settings.address;
  let uiUrl: string | undefined;
  if (address === undefined) {
    const state = readDevServerState(settings.dataDir);
    if (!state?.pid || !isProcessAlive(state.pid) || !(await canConnect(state.port))) {
      return {
        notAsked: `the embedded Temporal server in ${settings.dataDir} is not running (and is not started to answer)`,
      };
    }
    address = `127.0.0.1:${state.port}`;
    uiUrl = `http://127.0.0.1:${state.uiPort}`;
  }
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, connectTimeout: '10s', ...temporalConnectionSecurity(settings) });
  } catch (err) {
    return {
      notAsked: `cannot connect to Temporal at ${address}${settings.address ? ' (TEMPORAL_ADDRESS)' : ''}: ${(err as Error).message}`,
    };
  }
  return { conn: connectionTo(settings, connection, address, uiUrl) };
}
