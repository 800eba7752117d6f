// A TLS front for a plain-gRPC Temporal frontend (the dev server speaks h2c only): node:http2 over TLS with a
// throwaway CA and a leaf for `temporal.test`, forwarding every call to the server as it is, as a cluster behind a
// TLS proxy or Temporal Cloud's endpoint looks to a client. With `apiKey`, a call without `authorization: Bearer
// <key>` is answered UNAUTHENTICATED, as Temporal Cloud answers it. Records each call's path and headers.
import fs from 'node:fs';
import http2 from 'node:http2';
import { listenOnLoopback, makeTestCertificates } from './tls-test-server.js';

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
  const { ca, cert, key, serverName } = makeTestCertificates(opts.dir);

  const upstream = http2.connect(`http://${opts.upstream}`);
  upstream.on('error', () => {});
  const calls: TlsFront['calls'] = [];
  const server = http2.createSecureServer({
    cert: fs.readFileSync(cert),
    key: fs.readFileSync(key),
    allowHTTP1: false,
  });
  server.on('stream', (stream, headers) => {
    const authorization = headers['authorization'] as string | undefined;
    calls.push({
      path: String(headers[':path']),
      authorization,
      namespace: headers['temporal-namespace'] as string | undefined,
    });
    if (opts.apiKey !== undefined && authorization !== `Bearer ${opts.apiKey}`) {
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': '16',
          'grpc-message': 'API key missing or wrong',
        },
        { endStream: true },
      );
      return;
    }
    const forwarded: http2.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(headers))
      if (k !== ':authority' && k !== ':scheme' && v !== undefined) forwarded[k] = v;
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
  const listening = await listenOnLoopback(server);
  return {
    address: listening.address,
    caFile: ca,
    serverName,
    calls,
    close: async () => {
      upstream.destroy();
      await listening.close();
    },
  };
}
