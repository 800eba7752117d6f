// A TLS front for a plain-gRPC Temporal frontend (the dev server speaks h2c only): node:http2 over TLS with a
// throwaway CA and a leaf for `temporal.test`, forwarding every call to the server as it is, as a cluster behind a
// TLS proxy or Temporal Cloud's endpoint looks to a client. With `apiKey`, a call without `authorization: Bearer
// <key>` is answered UNAUTHENTICATED, as Temporal Cloud answers it. Records each call's path and headers.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import path from 'node:path';

export interface TlsFront {
  address: string;
  /** The CA that signed the front's certificate (for TEMPORAL_TLS_SERVER_CA_CERT_PATH). */
  caFile: string;
  /** The certificate's name (for TEMPORAL_TLS_SERVER_NAME, the address being an IP). */
  serverName: string;
  calls: Array<{ path: string; authorization: string | undefined; namespace: string | undefined }>;
  close(): Promise<void>;
}

export async function startTlsFront(opts: { upstream: string; dir: string; apiKey?: string }): Promise<TlsFront> {
  fs.mkdirSync(opts.dir, { recursive: true });
  const ca = path.join(opts.dir, 'ca.crt');
  const cert = path.join(opts.dir, 'server.crt');
  const key = path.join(opts.dir, 'server.key');
  const ossl = (...args: string[]) => execFileSync('openssl', args, { cwd: opts.dir, stdio: 'ignore' });
  ossl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', ca, '-days', '1', '-subj', '/CN=scrape-etl test CA');
  ossl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', 'server.csr', '-subj', '/CN=temporal.test');
  fs.writeFileSync(path.join(opts.dir, 'ext.cnf'), 'subjectAltName=DNS:temporal.test\nbasicConstraints=CA:FALSE\n');
  ossl('x509', '-req', '-in', 'server.csr', '-CA', ca, '-CAkey', 'ca.key', '-CAcreateserial', '-out', cert, '-days', '1', '-extfile', 'ext.cnf');

  const upstream = http2.connect(`http://${opts.upstream}`);
  upstream.on('error', () => {});
  const calls: TlsFront['calls'] = [];
  const server = http2.createSecureServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key), allowHTTP1: false });
  server.on('stream', (stream, headers) => {
    const authorization = headers['authorization'] as string | undefined;
    calls.push({ path: String(headers[':path']), authorization, namespace: headers['temporal-namespace'] as string | undefined });
    if (opts.apiKey !== undefined && authorization !== `Bearer ${opts.apiKey}`) {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'API key missing or wrong' }, { endStream: true });
      return;
    }
    const forwarded: http2.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(headers)) if (k !== ':authority' && k !== ':scheme' && v !== undefined) forwarded[k] = v;
    const up = upstream.request(forwarded);
    stream.pipe(up);
    let trailers: http2.IncomingHttpHeaders | undefined;
    up.on('trailers', (t) => (trailers = t));
    up.on('response', (h) => {
      const { ':status': status, ...rest } = h;
      const trailersOnly = rest['grpc-status'] !== undefined;
      stream.respond({ ':status': status, ...rest }, trailersOnly ? {} : { waitForTrailers: true });
      stream.on('wantTrailers', () => {
        const t: http2.OutgoingHttpHeaders = {};
        for (const [k, v] of Object.entries(trailers ?? {})) if (!k.startsWith(':') && v !== undefined) t[k] = v;
        stream.sendTrailers(t);
      });
      up.pipe(stream);
    });
    up.on('error', () => stream.destroy());
  });
  const sessions = new Set<http2.Http2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    address: `127.0.0.1:${port}`,
    caFile: ca,
    serverName: 'temporal.test',
    calls,
    close: () =>
      new Promise((r) => {
        for (const s of sessions) s.destroy();
        upstream.destroy();
        server.close(() => r());
      }),
  };
}
