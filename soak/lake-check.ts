// The soak's S3 target (`npm run soak -- --s3`): every pipeline also exports to s3://soak/lake on a SeaweedFS the
// soak starts, while workers are SIGKILLed. Afterwards every manifest is checked against the store and the
// destination: each file a manifest lists is there whole (its bytes), no object is outside a manifest (a killed
// attempt's leftover), no multipart upload is left open, and pyarrow (its own S3 filesystem) reads each pipeline's
// tables with no (natural key, load id) twice and the newest row of every key equal to the destination's rows.
import { GetObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Database } from '../destinations/contract.js';
import { TABLES } from '../db/model/schema/definition.js';
import { destinationOf } from '../destinations/index.js';
import type { LakeManifest } from '../export/targets/lake.js';
import { readLakeWithPyarrow } from '../test/support/lake-readers.js';
import type { S3Server } from '../test/support/s3-server.js';

export const SOAK_LAKE = { bucket: 'soak', prefix: 'lake' } as const;

export interface LakeInvariant {
  name: string;
  pass: boolean;
  figures: string;
  details: string[];
  /** Manifests on the store: what the runs reported as exported files of their lake entries. */
  manifests: number;
}

export async function checkLake(s3: S3Server, db: Database, pipelines: string[]): Promise<LakeInvariant> {
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  const details: string[] = [];
  try {
    const objects = new Map<string, number>();
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({
          Bucket: SOAK_LAKE.bucket,
          Prefix: `${SOAK_LAKE.prefix}/`,
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const o of page.Contents ?? []) objects.set(o.Key!, Number(o.Size));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    const manifests: LakeManifest[] = [];
    for (const key of objects.keys()) {
      if (!key.includes('/_manifests/')) continue;
      manifests.push(
        JSON.parse(
          await (
            await client.send(new GetObjectCommand({ Bucket: SOAK_LAKE.bucket, Key: key }))
          ).Body!.transformToString(),
        ) as LakeManifest,
      );
    }
    const listed = new Set<string>();
    let partial = 0;
    for (const m of manifests) {
      for (const f of m.files) {
        listed.add(f.key);
        if (objects.get(f.key) !== f.bytes) {
          partial += 1;
          details.push(
            `${m.run} ${m.table}: ${f.key} is ${objects.has(f.key) ? `${objects.get(f.key)} bytes, the manifest says ${f.bytes}` : 'missing'}`,
          );
        }
      }
    }
    const unlisted = [...objects.keys()].filter((k) => !k.includes('/_manifests/') && !listed.has(k));
    for (const k of unlisted) details.push(`not listed by any manifest: ${k}`);
    const open =
      (await client.send(new ListMultipartUploadsCommand({ Bucket: SOAK_LAKE.bucket, Prefix: `${SOAK_LAKE.prefix}/` })))
        .Uploads ?? [];
    for (const u of open) details.push(`multipart upload left open: ${u.Key}`);

    let duplicates = 0;
    let missing = 0;
    let tablesChecked = 0;
    const dest = destinationOf(db);
    for (const pipeline of pipelines) {
      const tables = [...new Set(manifests.filter((m) => m.pipeline === pipeline).map((m) => m.table))].filter(
        (t) => t in TABLES,
      );
      if (tables.length === 0) continue;
      const keyOf = (t: string) =>
        ((TABLES as Record<string, { primaryKey?: readonly string[] }>)[t]?.primaryKey ?? ['id']).filter(
          (c) => c !== 'pipeline',
        );
      const read = readLakeWithPyarrow(`${SOAK_LAKE.bucket}/${SOAK_LAKE.prefix}`, pipeline, {
        s3,
        keyColumns: Object.fromEntries(tables.map((t) => [t, [...keyOf(t), 'load_id']])),
      });
      for (const table of tables) {
        tablesChecked += 1;
        const keys = read[table]?.keys ?? [];
        const dup = keys.length - new Set(keys).size;
        duplicates += dup;
        if (dup > 0) details.push(`${pipeline} ${table}: ${dup} (key, load_id) pairs twice`);
        const newest = new Map<string, bigint>();
        for (const k of keys) {
          const cut = k.lastIndexOf('|');
          const id = BigInt(k.slice(cut + 1));
          if ((newest.get(k.slice(0, cut)) ?? -1n) < id) newest.set(k.slice(0, cut), id);
        }
        const cols = [...keyOf(table), 'load_id'];
        const rows = await dest.exportReader.query(
          db,
          `select ${cols.map((c) => `"${c}"`).join(', ')} from "${table}" where pipeline = ${dest.sql.ph(1)}`,
          [pipeline],
        );
        for (const r of rows) {
          const key = keyOf(table)
            .map((c) =>
              r[c] === null || r[c] === undefined
                ? 'None'
                : typeof r[c] === 'boolean'
                  ? r[c]
                    ? 'True'
                    : 'False'
                  : String(r[c]),
            )
            .join('|');
          if (newest.get(key) !== BigInt(String(r['load_id']))) {
            missing += 1;
            if (missing <= 20)
              details.push(
                `${pipeline} ${table}: destination row ${key} (load ${String(r['load_id'])}) is not the lake's newest (${newest.get(key) ?? 'absent'})`,
              );
          }
        }
      }
    }
    return {
      name: 'lake on S3',
      pass:
        manifests.length > 0 &&
        partial === 0 &&
        unlisted.length === 0 &&
        open.length === 0 &&
        duplicates === 0 &&
        missing === 0,
      figures: `${manifests.length} manifests, ${listed.size} files listed: ${partial} missing or partial, ${unlisted.length} objects outside a manifest, ${open.length} uploads left open; ${tablesChecked} tables read by pyarrow: ${duplicates} duplicates, ${missing} destination rows missing or stale`,
      details,
      manifests: manifests.length,
    };
  } finally {
    client.destroy();
  }
}
