// Hex digests of strings (UTF-8), for every hash of text the project takes (row hashes, body digests, ids and
// keys derived from text). Node's one-shot crypto.hash (20.12+) skips the Hash object that
// createHash(...).update(...).digest() allocates, a few microseconds a call: loads hash every row they write.
// The same bytes hashed, so the same digests as before. It is looked up at the first digest, not when this module
// loads: the read-only commands load this module (through the destinations) and never hash, and in their bundle
// node:crypto, with Node's dozen internal modules behind it, then never loads (scripts/lazy-modules.ts).
import crypto from 'node:crypto';

let oneShot: typeof crypto.hash | null | undefined;

export function hexDigest(algorithm: 'sha1' | 'sha256', text: string): string {
  oneShot ??= typeof crypto.hash === 'function' ? crypto.hash : null;
  return oneShot ? oneShot(algorithm, text, 'hex') : crypto.createHash(algorithm).update(text).digest('hex');
}
