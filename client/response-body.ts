// Reading a response body from undici's `request` (a Node Readable, no WHATWG streams): every byte counted
// against the size cap, and the body always read to its end or destroyed (an unread undici body pins its
// keep-alive socket), then decoded per Content-Encoding, which `request`, unlike fetch, leaves to the caller.
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Dispatcher } from 'undici';

export type ResponseBody = Dispatcher.ResponseData['body'];

const ignore = (): void => undefined;

/** Drops a body that will not be read (a redirect, an oversized one): the socket is closed, not left pinned. */
export function discardBody(body: ResponseBody): void {
  // undici's body emits an abort error when destroyed before its end; nobody waits for it any more.
  body.on('error', ignore);
  if (!body.destroyed) body.destroy();
}

/**
 * All bytes of `body`, as they arrive (`progress.bytes` counts them, for the timeout message). Past `limit` the
 * body is destroyed and `tooLarge(bytesSoFar)` is the rejection. An abort (the per-attempt timeout, the caller's
 * signal) or a dropped connection destroys the body inside undici, which rejects with that reason.
 */
export function collectBody(
  body: ResponseBody,
  limit: number,
  progress: { bytes: number },
  tooLarge: (received: number) => Error,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const done = (): void => {
      body.off('data', onData).off('end', onEnd).off('error', onError);
      body.on('error', ignore);
    };
    const onData = (chunk: Buffer): void => {
      progress.bytes += chunk.length;
      if (progress.bytes > limit) {
        done();
        body.destroy();
        reject(tooLarge(progress.bytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, progress.bytes));
    };
    const onError = (err: Error): void => {
      done();
      reject(err);
    };
    body.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/** UTF-8 text as `Response.text()` gives it: invalid sequences become U+FFFD and a leading BOM is dropped. */
export function utf8Text(bytes: Buffer): string {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bytes.toString('utf8', bom ? 3 : 0);
}

/**
 * What the client asks for, the same as Node's fetch sent before the client used `request` (brotli only over
 * https, as fetch does): the service may save bandwidth exactly as before, and a plain body costs nothing extra.
 */
export function acceptEncodingFor(protocol: string): string {
  return protocol === 'https:' ? 'br, gzip, deflate' : 'gzip, deflate';
}

export type DecodeProblem = 'unsupported' | 'truncated' | 'corrupt' | 'too-large';

/** A body whose Content-Encoding could not be undone; `problem` says how (the caller maps it to its error class). */
export class ContentDecodingError extends Error {
  constructor(
    message: string,
    readonly encoding: string,
    readonly problem: DecodeProblem,
  ) {
    super(message);
    this.name = 'ContentDecodingError';
  }
}

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotliDecompress = promisify(zlib.brotliDecompress);

/** A zlib-wrapped deflate stream starts with a CMF/FLG pair (RFC 1950); servers also send raw deflate under that name. */
function hasZlibHeader(bytes: Buffer): boolean {
  return bytes.length >= 2 && (bytes[0]! & 0x0f) === 8 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0;
}

/**
 * Undoes `Content-Encoding` (codings applied in order, so undone last first): gzip, x-gzip, deflate (zlib or raw)
 * and br, with node:zlib off the main thread. No decoded stage may exceed `maxBytes` (zlib's maxOutputLength),
 * so a small compressed body cannot expand past the size cap.
 */
export async function decodeContent(
  bytes: Buffer,
  contentEncoding: string | undefined,
  maxBytes: number,
): Promise<Buffer> {
  if (contentEncoding === undefined) return bytes;
  const codings = contentEncoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  let out = bytes;
  for (const coding of codings.reverse()) {
    // An empty body under an encoding header (a 204-like answer, a HEAD) has nothing to undo.
    if (out.length === 0) return out;
    const opts = { maxOutputLength: maxBytes };
    try {
      if (coding === 'gzip' || coding === 'x-gzip') out = await gunzip(out, opts);
      else if (coding === 'deflate') out = hasZlibHeader(out) ? await inflate(out, opts) : await inflateRaw(out, opts);
      else if (coding === 'br') out = await brotliDecompress(out, opts);
      else {
        throw new ContentDecodingError(
          `unsupported Content-Encoding '${coding}' (the client asks for gzip, deflate or br only)`,
          coding,
          'unsupported',
        );
      }
    } catch (err) {
      if (err instanceof ContentDecodingError) throw err;
      const code = (err as { code?: unknown }).code;
      if (code === 'ERR_BUFFER_TOO_LARGE') {
        throw new ContentDecodingError(`${coding} body decodes to more than ${maxBytes} bytes`, coding, 'too-large');
      }
      const truncated = code === 'Z_BUF_ERROR' || /unexpected end/i.test((err as Error).message);
      throw new ContentDecodingError(
        `${coding} body could not be decoded: ${(err as Error).message}${truncated ? ' (the body ends early: truncated?)' : ''}`,
        coding,
        truncated ? 'truncated' : 'corrupt',
      );
    }
  }
  return out;
}
