// Export targets beside the formats (../formats/): where a lake export's files go. `s3://bucket/prefix` is
// S3-compatible object storage (s3.ts); anything else names a local folder (local.ts). Light: the AWS SDK is loaded
// only when an s3:// target is opened.
import { fileURLToPath } from 'node:url';
import type { ObjectTarget, TargetKind } from './types.js';
import type { Env } from '../../settings/settings.js';

export const TARGET_KINDS = ['s3', 'local'] as const;
export type TargetKindName = (typeof TARGET_KINDS)[number];

const S3_URL = /^s3:\/\/([^/]+)(?:\/(.*))?$/;

/** Bucket names as S3 allows them (lowercase letters, digits, dots and dashes, 3-63). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export const TARGETS: { readonly [K in TargetKindName]: TargetKind } = {
  s3: {
    matches: (url) => /^s3:\/\//i.test(url),
    problem(url) {
      const m = S3_URL.exec(url);
      if (!m) return `${url} is not an S3 URL; write s3://<bucket>/<prefix>`;
      if (!BUCKET.test(m[1]!))
        return `${m[1]} is not an S3 bucket name (3-63 lowercase letters, digits, '.' and '-'); write s3://<bucket>/<prefix>`;
      if ((m[2] ?? '').split('/').some((p, i, all) => p === '..' || p === '.' || (p === '' && i < all.length - 1))) {
        return `${url}: the prefix must not hold empty, '.' or '..' parts`;
      }
      return undefined;
    },
    async open(url, env) {
      return (await import('./s3.js')).openS3Target(url, env);
    },
  },
  local: {
    matches: (url) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^file:\/\//i.test(url),
    problem: (url) =>
      url.trim() === '' ? 'the target folder is empty; name a folder or s3://<bucket>/<prefix>' : undefined,
    async open(url) {
      return (await import('./local.js')).openLocalTarget(url);
    },
  },
};

/** The kind of target `url` names; throws a clear error for a URL of no kind (http://…, gs://…). */
export function targetKindOf(url: string): TargetKindName {
  for (const name of TARGET_KINDS) if (TARGETS[name].matches(url)) return name;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  throw new Error(
    `export: ${url} is not a target scrape-etl writes to (${scheme}:// is not supported); write s3://<bucket>/<prefix> or a folder`,
  );
}

/** A clear sentence for a target URL that cannot be used, or undefined when it can. */
export function targetProblem(url: string): string | undefined {
  try {
    return TARGETS[targetKindOf(url)].problem(url);
  } catch (err) {
    return (err as Error).message.replace(/^export: /, '');
  }
}

/** Opens a target; `env` (a test's, a child's) stands for this process's settings when given. */
export async function openTarget(url: string, env?: Env): Promise<ObjectTarget> {
  const problem = targetProblem(url);
  if (problem !== undefined) throw new Error(`export: ${problem}`);
  return TARGETS[targetKindOf(url)].open(url, env);
}

export function isLocalTarget(url: string): boolean {
  return TARGETS.local.matches(url);
}

/** The folder a local target names (a path, or a file:// URL). */
export function localTargetPath(url: string): string {
  return /^file:\/\//i.test(url) ? fileURLToPath(url) : url;
}

/** Splits s3://bucket/prefix into its bucket and its key prefix ('' or ending in '/'). */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = S3_URL.exec(url);
  if (!m) throw new Error(`export: ${url} is not an S3 URL; write s3://<bucket>/<prefix>`);
  const prefix = (m[2] ?? '').replace(/\/+$/, '');
  return { bucket: m[1]!, prefix: prefix === '' ? '' : `${prefix}/` };
}
