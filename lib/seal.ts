// The signature ("seal") of a workflow input: HMAC-SHA256 with the data folder's signing key (lib/secret-key.ts)
// over the input's canonical JSON (keys sorted, `seal` and the worker-made `resume` left out). The commands that
// start runs seal the input; the worker's first step (activities/plan.ts) refuses an input whose seal is missing or
// wrong, non-retryably, before anything is written: the embedded Temporal server accepts any local user's
// connection, and without this any of them could make the owner's worker run a pipeline with the owner's token.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** What is signed: everything in the input that whoever starts a run chooses. */
export interface SealedFields {
  spec: unknown;
  runKey: string;
  urlList?: unknown;
}

/** Sorted keys, undefined left out, as JSON: the same text on both sides of the payload codec's JSON round trip. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return JSON.stringify(`${value}n`);
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined && typeof v !== 'function')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function sealOf(fields: SealedFields, signingKey: Buffer, keyId: string): string {
  const text = canonicalJson({ spec: fields.spec, runKey: fields.runKey, urlList: fields.urlList });
  return `v1.${keyId}.${createHmac('sha256', signingKey).update(text).digest('base64url')}`;
}

/** undefined when the seal is right, else why not (for the refusal's message). */
export function sealProblem(
  fields: SealedFields & { seal?: unknown },
  signingKey: Buffer,
  keyId: string,
): string | undefined {
  if (typeof fields.seal !== 'string' || fields.seal.length === 0) return 'it carries no signature';
  const [version, id] = fields.seal.split('.');
  if (version !== 'v1') return `its signature has an unknown format`;
  if (id !== keyId) return `it was signed with another key (${id}) than this worker's (${keyId})`;
  const want = Buffer.from(sealOf(fields, signingKey, keyId));
  const got = Buffer.from(fields.seal);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return 'its signature does not match its content';
  return undefined;
}
