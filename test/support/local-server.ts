// A throwaway node:http server on 127.0.0.1 whose answers a test sets per request: shapes and hostile
// behaviours (redirects, huge or dripping bodies) that the simulator does not produce.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The client's port: requests on one kept-alive connection share it. */
  remotePort: number;
}

export interface LocalServer {
  base: string;
  /** Every request received, in order, with its body. */
  seen: SeenRequest[];
  respond: (req: SeenRequest, res: http.ServerResponse) => void;
  close(): Promise<void>;
}

export async function startLocalServer(): Promise<LocalServer> {
  const state: LocalServer = {
    base: '',
    seen: [],
    respond: (_req, res) => {
      res.writeHead(500);
      res.end('no answer set');
    },
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort ?? -1,
      };
      state.seen.push(seen);
      state.respond(seen, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}
