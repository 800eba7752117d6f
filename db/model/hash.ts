// Hex digests of strings (UTF-8), for every hash of text the project takes (row hashes, body digests, ids and
// keys derived from text). Node's one-shot crypto.hash (20.12+) skips the Hash object that
// createHash(...).update(...).digest() allocates, a few microseconds a call: loads hash every row they write.
// The same bytes hashed, so the same digests as before.
import crypto from 'node:crypto';

const oneShot = typeof crypto.hash === 'function' ? crypto.hash : undefined;

export function hexDigest(algorithm: 'sha1' | 'sha256', text: string): string {
  return oneShot ? oneShot(algorithm, text, 'hex') : crypto.createHash(algorithm).update(text).digest('hex');
}
