// One unary gRPC call to a Temporal frontend over node:http2, for the read-only commands whose whole cost is start-up
// (`schedule list`): loading @temporalio/client with grpc-js and the generated protos costs many times the call
// itself (bench/startup.ts prints it). gRPC over HTTP/2 is one POST: a 5-byte frame header and the protobuf
// message, the status in the trailers. Plain h2c to the embedded server or TEMPORAL_ADDRESS; TLS (server CA,
// client certificate pair, server name) and an API key as the SDK sends them (`authorization: Bearer`, and the
// `temporal-namespace` header Temporal Cloud routes by), from the same settings (temporal/settings.ts).
import http2 from 'node:http2';
import { temporalConnectionSecurity, type TemporalSettings } from './settings.js';

/** gRPC status names by code, as grpc-js words its errors (`5 NOT_FOUND: ...`). */
const STATUS_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

/** The server answered the call with a gRPC status other than OK. */
export class GrpcStatusError extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
  ) {
    super(`${code} ${STATUS_NAMES[code] ?? 'UNKNOWN'}: ${details}`);
  }
}

/** The call never got an answer: the connection failed (refused, reset, TLS) or the deadline passed. */
export class GrpcConnectError extends Error {}

export interface UnaryCall {
  settings: Pick<TemporalSettings, 'tls' | 'apiKey' | 'namespace'>;
  address: string;
  /** e.g. temporal.api.workflowservice.v1.WorkflowService */
  service: string;
  method: string;
  request: Uint8Array;
  /** The whole call, connection included. */
  timeoutMs: number;
}

export async function unaryCall(call: UnaryCall): Promise<Buffer> {
  const security = temporalConnectionSecurity(call.settings);
  const tls = security.tls;
  const session = http2.connect(
    `${tls ? 'https' : 'http'}://${call.address}`,
    tls
      ? {
          ...(tls.serverRootCACertificate ? { ca: tls.serverRootCACertificate } : {}),
          ...(tls.clientCertPair ? { cert: tls.clientCertPair.crt, key: tls.clientCertPair.key } : {}),
          // SNI and the certificate's name: the override, else the address's host name;
          // an IP address gets none (http2 would send it, which RFC 6066 forbids and Node warns about).
          servername: tls.serverNameOverride ?? (hostIsName(call.address) ? hostOf(call.address) : ''),
        }
      : {},
  );
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new GrpcConnectError(`no answer within ${Math.round(call.timeoutMs / 1000)} s`)),
        call.timeoutMs,
      );
      const fail = (err: Error) => {
        clearTimeout(timer);
        reject(err);
      };
      session.on('error', (err: Error) => fail(new GrpcConnectError(reason(err))));
      const headers: http2.OutgoingHttpHeaders = {
        ':method': 'POST',
        ':path': `/${call.service}/${call.method}`,
        'content-type': 'application/grpc',
        te: 'trailers',
        'grpc-timeout': `${Math.max(1, Math.round(call.timeoutMs))}m`,
        'temporal-namespace': call.settings.namespace,
        ...(security.apiKey ? { authorization: `Bearer ${security.apiKey}` } : {}),
      };
      const req = session.request(headers);
      const chunks: Buffer[] = [];
      let responseHeaders: http2.IncomingHttpHeaders = {};
      let trailers: http2.IncomingHttpHeaders = {};
      req.on('response', (h) => (responseHeaders = h));
      req.on('trailers', (t) => (trailers = t));
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('error', (err: Error) => fail(new GrpcConnectError(reason(err))));
      req.on('end', () => {
        clearTimeout(timer);
        const httpStatus = Number(responseHeaders[':status']);
        // A trailers-only answer (an error) carries grpc-status in its headers.
        const status = trailers['grpc-status'] ?? responseHeaders['grpc-status'];
        if (status === undefined) {
          reject(new GrpcConnectError(`HTTP ${httpStatus} without a gRPC status (not a gRPC endpoint?)`));
          return;
        }
        if (Number(status) !== 0) {
          const message = trailers['grpc-message'] ?? responseHeaders['grpc-message'];
          reject(new GrpcStatusError(Number(status), decodeURIComponent(String(message ?? ''))));
          return;
        }
        try {
          resolve(unframe(Buffer.concat(chunks)));
        } catch (err) {
          reject(err as Error);
        }
      });
      const frame = Buffer.alloc(5 + call.request.length);
      frame.writeUInt8(0, 0); // not compressed
      frame.writeUInt32BE(call.request.length, 1);
      frame.set(call.request, 5);
      req.end(frame);
    });
  } finally {
    session.destroy();
  }
}

/** The innermost cause of a connection failure, on one line ('connect ECONNREFUSED 127.0.0.1:7233', a TLS alert). */
function reason(err: Error): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return (e as Error).message.replace(/\s+/g, ' ').trim();
}

/** The one message of a unary answer: a 5-byte header (compressed flag, length) and the bytes. */
function unframe(body: Buffer): Buffer {
  if (body.length < 5) throw new GrpcConnectError(`a gRPC answer of ${body.length} bytes (expected a framed message)`);
  // No grpc-accept-encoding was sent, so the server does not compress.
  if (body.readUInt8(0) !== 0) throw new GrpcConnectError('a compressed gRPC answer, which was not asked for');
  const length = body.readUInt32BE(1);
  if (body.length < 5 + length)
    throw new GrpcConnectError(`a truncated gRPC answer (${body.length - 5} of ${length} bytes)`);
  return body.subarray(5, 5 + length);
}

function hostOf(address: string): string {
  return address.startsWith('[') ? address.slice(1, address.indexOf(']')) : address.slice(0, address.lastIndexOf(':'));
}

function hostIsName(address: string): boolean {
  const host = hostOf(address);
  return !/^[0-9.]+$/.test(host) && !host.includes(':');
}
