// Where the worker and the CLI find Temporal, read from the environment in one place so the `run`, `schedule`
// and `worker` commands always agree on namespace and task queue.
import path from 'node:path';
import { readInputFileSync } from '../lib/input-file.js';

export interface TemporalSettings {
  /** host:port of a Temporal frontend; undefined means "start or reuse the embedded dev server". */
  address: string | undefined;
  namespace: string;
  taskQueue: string;
  /** Root of local state (embedded server's SQLite file, its logs and state file). */
  dataDir: string;
  /**
   * TLS toward TEMPORAL_ADDRESS (Temporal Cloud, a self-hosted cluster behind TLS); undefined: plain gRPC. Read from
   * the SDK's environment-configuration names: TEMPORAL_TLS, TEMPORAL_TLS_CLIENT_CERT_PATH / _KEY_PATH (mTLS),
   * TEMPORAL_TLS_SERVER_CA_CERT_PATH, TEMPORAL_TLS_SERVER_NAME. An API key turns TLS on unless TEMPORAL_TLS=false.
   */
  tls: TemporalTlsSettings | undefined;
  /** TEMPORAL_API_KEY: sent as `Authorization: Bearer <key>` (Temporal Cloud API keys). */
  apiKey: string | undefined;
}

export interface TemporalTlsSettings {
  clientCertPath?: string;
  clientKeyPath?: string;
  serverCaCertPath?: string;
  serverName?: string;
}

export const DEFAULT_NAMESPACE = 'default';
export const DEFAULT_TASK_QUEUE = 'scrape-etl';
export const DEFAULT_DATA_DIR = './data';

/** A malformed Temporal setting: the caller's to fix (exit 2, cli/command-error.ts), not a failure to retry. */
export class TemporalSettingsError extends Error {
  override readonly name = 'TemporalSettingsError';
}

export function temporalSettings(env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const nonEmpty = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const address = nonEmpty('TEMPORAL_ADDRESS');
  if (address !== undefined && !/^[^\s:/]+:\d{1,5}$/.test(address) && !/^\[[0-9a-f:]+\]:\d{1,5}$/i.test(address)) {
    throw new TemporalSettingsError(`TEMPORAL_ADDRESS must be host:port (e.g. 127.0.0.1:7233), got '${address}'`);
  }
  const apiKey = nonEmpty('TEMPORAL_API_KEY');
  const tlsFlag = nonEmpty('TEMPORAL_TLS')?.toLowerCase();
  if (tlsFlag !== undefined && !['true', 'false', '1', '0'].includes(tlsFlag)) {
    throw new TemporalSettingsError(`TEMPORAL_TLS must be true or false, got '${env['TEMPORAL_TLS']}'`);
  }
  const tlsFiles: TemporalTlsSettings = {};
  const certPath = nonEmpty('TEMPORAL_TLS_CLIENT_CERT_PATH');
  const keyPath = nonEmpty('TEMPORAL_TLS_CLIENT_KEY_PATH');
  const caPath = nonEmpty('TEMPORAL_TLS_SERVER_CA_CERT_PATH');
  const serverName = nonEmpty('TEMPORAL_TLS_SERVER_NAME');
  if ((certPath === undefined) !== (keyPath === undefined)) {
    throw new TemporalSettingsError('TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH go together (mTLS needs both)');
  }
  if (certPath) tlsFiles.clientCertPath = path.resolve(certPath);
  if (keyPath) tlsFiles.clientKeyPath = path.resolve(keyPath);
  if (caPath) tlsFiles.serverCaCertPath = path.resolve(caPath);
  if (serverName) tlsFiles.serverName = serverName;
  const explicitOff = tlsFlag === 'false' || tlsFlag === '0';
  const wanted = tlsFlag === 'true' || tlsFlag === '1' || Object.keys(tlsFiles).length > 0 || (apiKey !== undefined && !explicitOff);
  if (explicitOff && Object.keys(tlsFiles).length > 0) throw new TemporalSettingsError('TEMPORAL_TLS=false contradicts the TEMPORAL_TLS_* files given');
  const tls = wanted ? tlsFiles : undefined;
  if ((tls || apiKey) && address === undefined) {
    throw new TemporalSettingsError('TEMPORAL_TLS* / TEMPORAL_API_KEY need TEMPORAL_ADDRESS (the embedded dev server speaks plain gRPC)');
  }
  return {
    address,
    namespace: nonEmpty('TEMPORAL_NAMESPACE') ?? DEFAULT_NAMESPACE,
    taskQueue: nonEmpty('TEMPORAL_TASK_QUEUE') ?? DEFAULT_TASK_QUEUE,
    dataDir: path.resolve(nonEmpty('SCRAPE_ETL_DATA_DIR') ?? DEFAULT_DATA_DIR),
    tls,
    apiKey,
  };
}

/**
 * The TLS and API-key part of a client or worker connection (`Connection.connect` and `NativeConnection.connect`
 * take the same shape), with the certificate files read. Empty for plain gRPC; `tls: false` for an API key sent
 * over plain gRPC (TEMPORAL_TLS=false), which the SDK would otherwise turn into TLS on its own.
 */
export function temporalConnectionSecurity(settings: Pick<TemporalSettings, 'tls' | 'apiKey'>): {
  tls?: { serverNameOverride?: string; serverRootCACertificate?: Buffer; clientCertPair?: { crt: Buffer; key: Buffer } } | false;
  apiKey?: string;
} {
  const read = (what: string, file: string): Buffer => {
    try {
      return readInputFileSync(file, 'tls');
    } catch (err) {
      throw new Error(`cannot read ${what} ${file}: ${(err as Error).message}`, { cause: err });
    }
  };
  const out: ReturnType<typeof temporalConnectionSecurity> = {};
  const t = settings.tls;
  if (t) {
    out.tls = {
      ...(t.serverName ? { serverNameOverride: t.serverName } : {}),
      ...(t.serverCaCertPath ? { serverRootCACertificate: read('TEMPORAL_TLS_SERVER_CA_CERT_PATH', t.serverCaCertPath) } : {}),
      ...(t.clientCertPath && t.clientKeyPath
        ? { clientCertPair: { crt: read('TEMPORAL_TLS_CLIENT_CERT_PATH', t.clientCertPath), key: read('TEMPORAL_TLS_CLIENT_KEY_PATH', t.clientKeyPath) } }
        : {}),
    };
  }
  if (settings.apiKey) {
    out.apiKey = settings.apiKey;
    if (!t) out.tls = false;
  }
  return out;
}
