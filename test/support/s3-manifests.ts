// The lake's manifests under a prefix of an S3 bucket, read with the SDK (the lake tests on SeaweedFS).
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { LakeManifest } from '../../export/targets/lake.js';

export async function s3Manifests(client: S3Client, bucket: string, prefix: string): Promise<LakeManifest[]> {
  const keys = ((await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))).Contents ?? [])
    .map((o) => o.Key!)
    .filter((k) => k.includes('/_manifests/'));
  return Promise.all(
    keys.map(
      async (Key) =>
        JSON.parse(
          await (await client.send(new GetObjectCommand({ Bucket: bucket, Key }))).Body!.transformToString(),
        ) as LakeManifest,
    ),
  );
}
