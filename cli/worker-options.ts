// Options shared by the commands that run pipeline workers (`worker`, `up`): parsers and the SDK metrics port.
// Light (node built-ins only), like everything a command module loads at registration.

export function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got '${value}'`);
    return n;
  };
}

export function portNumber(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number (0-65535), got '${value}'`);
  return n;
}

/**
 * Where the SDK's own exporter listens: SCRAPE_ETL_SDK_METRICS_PORT, else the metrics port + 1, else (metrics port
 * 0, or + 1 out of range) a free port found now. It is bound on loopback only and read through --metrics-port.
 */
export async function sdkMetricsPort(metricsPort: number): Promise<number> {
  const set = process.env['SCRAPE_ETL_SDK_METRICS_PORT']?.trim();
  if (set) return portNumber('SCRAPE_ETL_SDK_METRICS_PORT', set);
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
