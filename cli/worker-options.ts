// Options shared by the commands that run pipeline workers (`worker`, `up`): parsers, their settings with the
// flags over them, and the SDK metrics port. Light, like everything a command module loads at registration.
import { processSettings } from '../settings/process.js';
import type { Settings } from '../settings/settings.js';

export function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got '${value}'`);
    return n;
  };
}

export function portNumber(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`${name} must be a port number (0-65535), got '${value}'`);
  return n;
}

/** The settings of a command that runs workers (`up`, `worker`): its flags over the process's settings. */
export function workerSettings(flags: {
  shutdownGrace?: string | undefined;
  logLevel?: string | undefined;
  metricsPort?: string | undefined;
  metricsHost?: string | undefined;
}): Settings {
  return processSettings().withFlags({
    shutdownGrace: flags.shutdownGrace,
    workerLogLevel: flags.logLevel,
    metricsPort: flags.metricsPort,
    metricsHost: flags.metricsHost,
  });
}

/**
 * Where the SDK's own exporter listens: SCRAPE_ETL_SDK_METRICS_PORT, else the metrics port + 1, else (metrics port
 * 0, or + 1 out of range) a free port found now. It is bound on loopback only and read through --metrics-port.
 */
export async function sdkMetricsPort(metricsPort: number, settings: Settings = processSettings()): Promise<number> {
  const set = settings.sdkMetricsPort;
  if (set !== undefined) return set;
  if (metricsPort > 0 && metricsPort < 65535) return metricsPort + 1;
  const net = await import('node:net');
  return new Promise<number>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as import('node:net').AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
