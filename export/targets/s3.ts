// An S3-compatible bucket as a lake target, through the AWS SDK for JavaScript v3: `@aws-sdk/lib-storage`'s Upload
// streams a file in parts (s3-settings.ts: part size, parts in flight), so memory is bounded by those whatever the
// file's size; a failed or aborted upload is aborted at the store (its parts removed), and one a killed process left
// is listed by incompleteUploads for the lake to abort.
import { createReadStream, createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { parseS3Url } from './index.js';
import { s3Settings } from './s3-settings.js';
import { quietAwsSdkNodeNotice, settingsFor } from '../../settings/process.js';
import type { Env } from '../../settings/settings.js';
import type { IncompleteUpload, ObjectTarget, StoredObject } from './types.js';

/** DeleteObjects takes at most this many keys. */
const DELETE_BATCH = 1000;

export function openS3Target(url: string, env?: Env): ObjectTarget {
  const { bucket, prefix } = parseS3Url(url);
  const settings = s3Settings(settingsFor(env));
  const config: S3ClientConfig = {
    forcePathStyle: settings.forcePathStyle,
    ...(settings.endpoint !== undefined ? { endpoint: settings.endpoint } : {}),
    ...(settings.region !== undefined ? { region: settings.region } : {}),
  };
  quietAwsSdkNodeNotice();
  const client = new S3Client(config);
  const described = (err: unknown, what: string): Error => {
    const e = err as Error & { $metadata?: { httpStatusCode?: number }; Code?: string };
    const status = e.$metadata?.httpStatusCode;
    const name = e.name ?? 'Error';
    const hint =
      name === 'NoSuchBucket'
        ? `: the bucket ${bucket} does not exist; create it or name another in the export's to:`
        : name === 'AccessDenied' || status === 403
          ? ': access denied; the credentials (AWS_ACCESS_KEY_ID, AWS_PROFILE, a role) need s3:PutObject, s3:GetObject, s3:ListBucket, s3:DeleteObject, s3:ListBucketMultipartUploads and s3:AbortMultipartUpload on it (docs/lake.md)'
          : name === 'CredentialsProviderError'
            ? ': no AWS credentials found (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or a role)'
            : '';
    // 'export:' marks an error no retry fixes (activities/exports.ts fails the run at once); a network error, a 5xx, a
    // throttled request is said the same way but left to Temporal's retries.
    const permanent =
      hint !== '' || (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429);
    return new Error(
      `${permanent ? 'export: ' : ''}${what} ${url} failed (${name}${status ? ` ${status}` : ''}: ${e.message})${hint}`,
      { cause: err },
    );
  };
  const getBytes = async (key: string): Promise<Buffer | null> => {
    try {
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from((await out.Body?.transformToByteArray()) ?? []);
    } catch (err) {
      if (
        (err as Error).name === 'NoSuchKey' ||
        (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
      )
        return null;
      throw described(err, `reading ${key} from`);
    }
  };
  return {
    url,
    prefix,
    locate: (key) => `s3://${bucket}/${key}`,
    async upload(key, file, opts = {}) {
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: createReadStream(file, { highWaterMark: 1024 * 1024 }) },
        partSize: settings.partBytes,
        queueSize: settings.partsInFlight,
        leavePartsOnError: false,
      });
      const abort = () => void upload.abort().catch(() => {});
      opts.signal?.addEventListener('abort', abort, { once: true });
      if (opts.onProgress) upload.on('httpUploadProgress', (p) => opts.onProgress!(p.loaded ?? 0));
      try {
        opts.signal?.throwIfAborted();
        await upload.done();
      } catch (err) {
        if (opts.signal?.aborted)
          throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error('export aborted');
        throw described(err, `uploading ${key} to`);
      } finally {
        opts.signal?.removeEventListener('abort', abort);
      }
    },
    async putText(key, text) {
      try {
        await client.send(
          new PutObjectCommand({ Bucket: bucket, Key: key, Body: text, ContentType: 'application/json' }),
        );
      } catch (err) {
        throw described(err, `writing ${key} to`);
      }
    },
    async getText(key) {
      const bytes = await getBytes(key);
      return bytes === null ? null : bytes.toString('utf8');
    },
    getBytes,
    async download(key, file) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        await pipeline(out.Body as Readable, createWriteStream(file));
        return true;
      } catch (err) {
        if (
          (err as Error).name === 'NoSuchKey' ||
          (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
        )
          return false;
        throw described(err, `reading ${key} from`);
      }
    },
    async list(keyPrefix) {
      const out: StoredObject[] = [];
      let token: string | undefined;
      try {
        do {
          const page = await client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              Prefix: keyPrefix,
              ...(token ? { ContinuationToken: token } : {}),
            }),
          );
          for (const o of page.Contents ?? [])
            if (o.Key !== undefined) out.push({ key: o.Key, size: Number(o.Size ?? 0) });
          token = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (token);
      } catch (err) {
        throw described(err, `listing ${keyPrefix} in`);
      }
      return out;
    },
    async remove(keys) {
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const batch = keys.slice(i, i + DELETE_BATCH);
        try {
          const out = await client.send(
            new DeleteObjectsCommand({
              Bucket: bucket,
              Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
            }),
          );
          const failed = out.Errors ?? [];
          if (failed.length > 0)
            throw new Error(
              `${failed.length} of ${batch.length} not deleted, first ${failed[0]!.Key}: ${failed[0]!.Code} ${failed[0]!.Message}`,
            );
        } catch (err) {
          throw described(err, `deleting ${batch.length} objects from`);
        }
      }
    },
    async incompleteUploads(keyPrefix) {
      const out: IncompleteUpload[] = [];
      let keyMarker: string | undefined;
      let idMarker: string | undefined;
      try {
        do {
          const page = await client.send(
            new ListMultipartUploadsCommand({
              Bucket: bucket,
              Prefix: keyPrefix,
              ...(keyMarker ? { KeyMarker: keyMarker } : {}),
              ...(idMarker ? { UploadIdMarker: idMarker } : {}),
            }),
          );
          for (const u of page.Uploads ?? []) {
            if (u.Key === undefined || u.UploadId === undefined) continue;
            out.push({ key: u.Key, started: u.Initiated ?? new Date(0), id: u.UploadId });
          }
          keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
          idMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
        } while (keyMarker);
      } catch (err) {
        throw described(err, `listing incomplete uploads under ${keyPrefix} in`);
      }
      return out.sort((a, b) => a.started.getTime() - b.started.getTime());
    },
    async abortIncomplete(upload) {
      const id = upload.id;
      if (id === undefined) return;
      try {
        await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.key, UploadId: id }));
      } catch (err) {
        if ((err as Error).name === 'NoSuchUpload') return;
        throw described(err, `aborting the incomplete upload of ${upload.key} in`);
      }
    },
    close: () => client.destroy(),
  };
}
