// Where the worker and the CLI find Temporal, from the settings object (settings/) in one place so the `run`,
// `schedule` and `worker` commands always agree on namespace and task queue; the settings that go together are
// checked together here.
import path from 'node:path';
import { readInputFileSync } from '../lib/input-file.js';
import { defaultOf } from '../settings/definition.js';
import { processSettings } from '../settings/process.js';
import { isSettings, SettingError, settingsOf, type Env, type Settings } from '../settings/settings.js';

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

export const DEFAULT_NAMESPACE: string = defaultOf('temporalNamespace');
export const DEFAULT_TASK_QUEUE: string = defaultOf('temporalTaskQueue');
export const DEFAULT_DATA_DIR: string = defaultOf('dataDir');

/** A malformed Temporal setting: the caller's to fix (exit 2, cli/command-error.ts), not a failure to retry. */
export class TemporalSettingsError extends Error {
  override readonly name = 'TemporalSettingsError';
}

/** The Temporal part of `settings` (an environment, for a test or a child, is read as settings too; default: this process's). */
export function temporalSettings(from?: Settings | Env): TemporalSettings {
  const s = from === undefined ? processSettings() : isSettings(from) ? from : settingsOf(from);
  // A malformed value is the caller's to fix (exit 2), as every setting's: TemporalSettingsError says so to callers.
  const read = <T>(get: () => T): T => {
    try {
      return get();
    } catch (err) {
      if (err instanceof SettingError) throw new TemporalSettingsError(err.message);
      throw err;
    }
  };
  const address = read(() => s.temporalAddress);
  const apiKey = read(() => s.temporalApiKey);
  const tlsSetting = read(() => s.temporalTls);
  const tlsFlag = tlsSetting === undefined ? undefined : String(tlsSetting);
  const tlsFiles: TemporalTlsSettings = {};
  const certPath = s.temporalTlsClientCertPath;
  const keyPath = s.temporalTlsClientKeyPath;
  const caPath = s.temporalTlsServerCaCertPath;
  const serverName = s.temporalTlsServerName;
  if ((certPath === undefined) !== (keyPath === undefined)) {
    throw new TemporalSettingsError(
      'TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH go together (mTLS needs both)',
    );
  }
  if (certPath) tlsFiles.clientCertPath = path.resolve(certPath);
  if (keyPath) tlsFiles.clientKeyPath = path.resolve(keyPath);
  if (caPath) tlsFiles.serverCaCertPath = path.resolve(caPath);
  if (serverName) tlsFiles.serverName = serverName;
  const explicitOff = tlsFlag === 'false';
  const wanted = tlsFlag === 'true' || Object.keys(tlsFiles).length > 0 || (apiKey !== undefined && !explicitOff);
  if (explicitOff && Object.keys(tlsFiles).length > 0)
    throw new TemporalSettingsError('TEMPORAL_TLS=false contradicts the TEMPORAL_TLS_* files given');
  const tls = wanted ? tlsFiles : undefined;
  if ((tls || apiKey) && address === undefined) {
    throw new TemporalSettingsError(
      'TEMPORAL_TLS* / TEMPORAL_API_KEY need TEMPORAL_ADDRESS (the embedded dev server speaks plain gRPC)',
    );
  }
  return {
    address,
    namespace: s.temporalNamespace,
    taskQueue: s.temporalTaskQueue,
    dataDir: path.resolve(s.dataDir),
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
  tls?:
    | { serverNameOverride?: string; serverRootCACertificate?: Buffer; clientCertPair?: { crt: Buffer; key: Buffer } }
    | false;
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
      ...(t.serverCaCertPath
        ? { serverRootCACertificate: read('TEMPORAL_TLS_SERVER_CA_CERT_PATH', t.serverCaCertPath) }
        : {}),
      ...(t.clientCertPath && t.clientKeyPath
        ? {
            clientCertPair: {
              crt: read('TEMPORAL_TLS_CLIENT_CERT_PATH', t.clientCertPath),
              key: read('TEMPORAL_TLS_CLIENT_KEY_PATH', t.clientKeyPath),
            },
          }
        : {}),
    };
  }
  if (settings.apiKey) {
    out.apiKey = settings.apiKey;
    if (!t) out.tls = false;
  }
  return out;
}
