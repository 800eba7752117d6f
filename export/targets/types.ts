// What the lake (lake.ts) needs of a place to put files: objects under keys, written whole or not at all, listed by
// prefix and removed. A local folder and S3-compatible object storage are the two targets (index.ts); the layout,
// manifests and exactly-once rules are the lake's, the same on both.
import type { Env } from '../../settings/settings.js';

export interface StoredObject {
  key: string;
  size: number;
}

export interface IncompleteUpload {
  key: string;
  /** When the upload began (multipart uploads), or the partial file was last written. */
  started: Date;
  /** The store's id of a multipart upload. */
  id?: string;
}

export interface ObjectTarget {
  /** The target as the user wrote it (s3://bucket/prefix, a folder), for messages. */
  readonly url: string;
  /** The key prefix every key of this target starts with ('' or ending in '/'). */
  readonly prefix: string;
  /** Where a key is, as a reader names it (s3://bucket/key, or a path). */
  locate(key: string): string;
  /**
   * Writes a local file to `key`, streaming it (parts of bounded size, a bounded number in flight). The object is
   * visible only once complete; a failed or aborted write leaves nothing under the key (an interrupted multipart
   * upload is aborted, a partial file removed).
   */
  upload(
    key: string,
    file: string,
    opts?: { signal?: AbortSignal; onProgress?: (bytes: number) => void },
  ): Promise<void>;
  /** Writes a small text object whole (a manifest). */
  putText(key: string, text: string): Promise<void>;
  /** The text of an object, or null when there is none. */
  getText(key: string): Promise<string | null>;
  /** The bytes of an object (an Iceberg manifest list), or null when there is none. */
  getBytes(key: string): Promise<Buffer | null>;
  /** Copies an object to a local file, streaming; false when there is no such object. */
  download(key: string, file: string): Promise<boolean>;
  /** Every object whose key starts with `prefix`. */
  list(prefix: string): Promise<StoredObject[]>;
  remove(keys: string[]): Promise<void>;
  /** Uploads begun under `prefix` and never completed (a killed worker's), oldest first. */
  incompleteUploads(prefix: string): Promise<IncompleteUpload[]>;
  /** Removes one incomplete upload's parts. */
  abortIncomplete(upload: IncompleteUpload): Promise<void>;
  close(): void;
}

export interface TargetKind {
  /** Whether `url` names this kind of target. */
  matches(url: string): boolean;
  /** A clear error for a malformed URL of this kind, or undefined when it is well formed. */
  problem(url: string): string | undefined;
  open(url: string, env?: Env): Promise<ObjectTarget>;
}
