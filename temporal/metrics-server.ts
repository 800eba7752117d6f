// The worker's one Prometheus endpoint. The Temporal SDK's runtime serves its own metrics (temporal_*) from a
// server inside its native core, on an address it binds itself; we bind that one to loopback and append its
// text to our product metrics (scrape_etl_*) here, so Prometheus scrapes one target per worker and the SDK's
// port need not be reachable from outside. The two sets never share a name (temporal_ vs scrape_etl_ prefixes).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(opts: {
  host: string;
  port: number;
  registry: Registry;
  sdkMetricsUrl?: string;
}): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: metrics are at /metrics\n');
      return;
    }
    void (async () => {
      try {
        const own = await opts.registry.metrics();
        let sdk = '';
        if (opts.sdkMetricsUrl) {
          // A failing SDK exporter must not hide the product's metrics: say so in a comment and serve the rest.
          try {
            const r = await fetch(opts.sdkMetricsUrl, { signal: AbortSignal.timeout(5000) });
            sdk = r.ok ? await r.text() : `# Temporal SDK metrics unavailable: HTTP ${r.status}\n`;
          } catch (err) {
            sdk = `# Temporal SDK metrics unavailable: ${(err as Error).message}\n`;
          }
        }
        res.writeHead(200, { 'content-type': opts.registry.contentType });
        res.end(`${own}${own.endsWith('\n') ? '' : '\n'}${sdk}`);
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`${(err as Error).message}\n`);
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}/metrics`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
