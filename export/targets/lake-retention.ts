// `retention.exports: N` on the lake: per table, the N newest runs (by their manifests) are kept; an older run's
// manifest is deleted first and then every object of that run (the files it listed and any other part-<run>-…), so
// a manifest never lists a file that is gone. Idempotent: a retried prune finds less to delete.
import { openTarget } from './index.js';
import type { Env } from '../../settings/settings.js';
import { runSlug, type LakeManifest } from './lake.js';

export interface LakeRetentionResult {
  /** Where each deleted object was (s3://… or a path). */
  deleted: string[];
  /** Runs kept, summed over tables. */
  kept: number;
}

const MANIFEST = /^(.*\/)_manifests\/([^/]+)\.json$/;

export async function pruneLake(opts: {
  to: string;
  pipeline: string;
  keep: number;
  env?: Env;
}): Promise<LakeRetentionResult> {
  const target = await openTarget(opts.to, opts.env);
  const out: LakeRetentionResult = { deleted: [], kept: 0 };
  try {
    const objects = await target.list(`${target.prefix}${opts.pipeline}/`);
    const byTable = new Map<string, Array<{ key: string; manifest: LakeManifest }>>();
    for (const o of objects) {
      const m = MANIFEST.exec(o.key);
      if (!m) continue;
      const text = await target.getText(o.key);
      if (text === null) continue;
      const manifest = JSON.parse(text) as LakeManifest;
      byTable.set(m[1]!, [...(byTable.get(m[1]!) ?? []), { key: o.key, manifest }]);
    }
    for (const [tablePrefix, runs] of byTable) {
      runs.sort((a, b) => b.manifest.written_at.localeCompare(a.manifest.written_at) || b.key.localeCompare(a.key));
      out.kept += Math.min(runs.length, opts.keep);
      for (const { key, manifest } of runs.slice(opts.keep)) {
        await target.remove([key]);
        out.deleted.push(target.locate(key));
        const partOf = `/part-${runSlug(manifest.run)}-`;
        const files = new Set([
          ...manifest.files.map((f) => f.key),
          ...objects.filter((o) => o.key.startsWith(tablePrefix) && o.key.includes(partOf)).map((o) => o.key),
        ]);
        await target.remove([...files]);
        for (const f of files) out.deleted.push(target.locate(f));
      }
    }
  } finally {
    target.close();
  }
  return out;
}
