// One way for every command to reach Temporal: TEMPORAL_ADDRESS when set, else the embedded dev server under the
// data folder (started or reused).
import { Client, Connection } from '@temporalio/client';
import { ensureDevServer } from './dev-server.js';
import { temporalSettings, type TemporalSettings } from './settings.js';

export interface TemporalConnection {
  client: Client;
  connection: Connection;
  namespace: string;
  taskQueue: string;
  /** Web UI of the embedded server; undefined for an external cluster (its UI address is not known here). */
  uiUrl: string | undefined;
  embedded: boolean;
  address: string;
}

export interface ConnectOptions {
  settings?: TemporalSettings;
  log?: (message: string) => void;
}

export async function connectTemporal(opts: ConnectOptions = {}): Promise<TemporalConnection> {
  const settings = opts.settings ?? temporalSettings();
  let address = settings.address;
  let uiUrl: string | undefined;
  if (address === undefined) {
    const server = await ensureDevServer({
      dataDir: settings.dataDir,
      namespace: settings.namespace,
      ...(opts.log ? { log: opts.log } : {}),
    });
    address = server.address;
    uiUrl = server.uiUrl;
  }
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, connectTimeout: '10s' });
  } catch (err) {
    throw new Error(
      `cannot connect to Temporal at ${address}${settings.address ? ' (TEMPORAL_ADDRESS)' : ' (embedded dev server)'}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const client = new Client({ connection, namespace: settings.namespace });
  return {
    client,
    connection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    uiUrl,
    embedded: settings.address === undefined,
    address,
  };
}
