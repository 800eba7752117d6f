// What the tests that speak gRPC over TLS share (test/fast/temporal/temporal-settings.test.ts, grpc-tls-front.ts):
// a throwaway CA and a leaf certificate for `temporal.test`, made with openssl, and an HTTP/2 server listening on a
// loopback port whose close() also ends its open sessions (a client's kept-alive session would keep it open).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type http2 from 'node:http2';
import path from 'node:path';

export interface TestCertificates {
  /** The CA that signed the leaf (for TEMPORAL_TLS_SERVER_CA_CERT_PATH). */
  ca: string;
  cert: string;
  key: string;
  /** The leaf's name (for TEMPORAL_TLS_SERVER_NAME, the address being an IP). */
  serverName: string;
}

/** A CA and a leaf it signs, in `dir`: the worker's TLS (rustls) refuses a self-signed CA certificate used as the server's. */
export function makeTestCertificates(dir: string): TestCertificates {
  fs.mkdirSync(dir, { recursive: true });
  const serverName = 'temporal.test';
  const ca = path.join(dir, 'ca.crt');
  const cert = path.join(dir, 'server.crt');
  const key = path.join(dir, 'server.key');
  const ossl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  ossl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    ca,
    '-days',
    '1',
    '-subj',
    '/CN=scrape-etl test CA',
  );
  ossl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', 'server.csr', '-subj', `/CN=${serverName}`);
  fs.writeFileSync(path.join(dir, 'ext.cnf'), `subjectAltName=DNS:${serverName}\nbasicConstraints=CA:FALSE\n`);
  ossl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    ca,
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    cert,
    '-days',
    '1',
    '-extfile',
    'ext.cnf',
  );
  return { ca, cert, key, serverName };
}

/** Listens on a loopback port; close() destroys the open sessions, then closes the server. */
export async function listenOnLoopback(
  server: http2.Http2Server | http2.Http2SecureServer,
): Promise<{ address: string; close(): Promise<void> }> {
  const sessions = new Set<http2.Http2Session>();
  server.on('session', (s: http2.Http2Session) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise((r) => {
        for (const s of sessions) s.destroy();
        server.close(() => r());
      }),
  };
}
