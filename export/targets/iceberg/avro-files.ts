// The Avro files of an Iceberg snapshot (format version 2), written and read with avsc: a manifest listing the run's
// data files, and the snapshot's manifest list (every manifest of the parent snapshot plus the new one). Field ids
// are the spec's (readers match fields by id); 64-bit values (snapshot ids, sequence numbers, sizes) are bigint,
// never rounded through a JS number. Optional fields the lake has nothing for (column metrics, bounds) are left out
// of the schema, which readers take as null.
import { randomBytes } from 'node:crypto';
import avro from 'avsc';

/** Avro longs as bigint: snapshot ids use all 64 bits. */
const LONG = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: (v: unknown) => BigInt(v as string),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === 'bigint',
  compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
});

const typeOf = (schema: object) => avro.Type.forSchema(schema as avro.Schema, { registry: { long: LONG } });

const MANIFEST_ENTRY_SCHEMA = {
  type: 'record',
  name: 'manifest_entry',
  fields: [
    { name: 'status', type: 'int', 'field-id': 0 },
    { name: 'snapshot_id', type: ['null', 'long'], default: null, 'field-id': 1 },
    { name: 'sequence_number', type: ['null', 'long'], default: null, 'field-id': 3 },
    { name: 'file_sequence_number', type: ['null', 'long'], default: null, 'field-id': 4 },
    {
      name: 'data_file',
      'field-id': 2,
      type: {
        type: 'record',
        name: 'r2',
        fields: [
          { name: 'content', type: 'int', 'field-id': 134 },
          { name: 'file_path', type: 'string', 'field-id': 100 },
          { name: 'file_format', type: 'string', 'field-id': 101 },
          { name: 'partition', type: { type: 'record', name: 'r102', fields: [] }, 'field-id': 102 },
          { name: 'record_count', type: 'long', 'field-id': 103 },
          { name: 'file_size_in_bytes', type: 'long', 'field-id': 104 },
        ],
      },
    },
  ],
};
const MANIFEST_ENTRY = typeOf(MANIFEST_ENTRY_SCHEMA);

const MANIFEST_FILE_SCHEMA = {
  type: 'record',
  name: 'manifest_file',
  fields: [
    { name: 'manifest_path', type: 'string', 'field-id': 500 },
    { name: 'manifest_length', type: 'long', 'field-id': 501 },
    { name: 'partition_spec_id', type: 'int', 'field-id': 502 },
    { name: 'content', type: 'int', 'field-id': 517 },
    { name: 'sequence_number', type: 'long', 'field-id': 515 },
    { name: 'min_sequence_number', type: 'long', 'field-id': 516 },
    { name: 'added_snapshot_id', type: 'long', 'field-id': 503 },
    { name: 'added_files_count', type: 'int', 'field-id': 504 },
    { name: 'existing_files_count', type: 'int', 'field-id': 505 },
    { name: 'deleted_files_count', type: 'int', 'field-id': 506 },
    { name: 'added_rows_count', type: 'long', 'field-id': 512 },
    { name: 'existing_rows_count', type: 'long', 'field-id': 513 },
    { name: 'deleted_rows_count', type: 'long', 'field-id': 514 },
    {
      name: 'partitions',
      type: [
        'null',
        {
          type: 'array',
          'element-id': 508,
          items: {
            type: 'record',
            name: 'r508',
            fields: [
              { name: 'contains_null', type: 'boolean', 'field-id': 509 },
              { name: 'contains_nan', type: ['null', 'boolean'], default: null, 'field-id': 518 },
              { name: 'lower_bound', type: ['null', 'bytes'], default: null, 'field-id': 510 },
              { name: 'upper_bound', type: ['null', 'bytes'], default: null, 'field-id': 511 },
            ],
          },
        },
      ],
      default: null,
      'field-id': 507,
    },
    { name: 'key_metadata', type: ['null', 'bytes'], default: null, 'field-id': 519 },
  ],
};
const MANIFEST_FILE = typeOf(MANIFEST_FILE_SCHEMA);

export interface DataFileEntry {
  path: string;
  rows: number;
  bytes: number;
}

export interface ManifestFile {
  manifest_path: string;
  manifest_length: bigint;
  partition_spec_id: number;
  content: number;
  sequence_number: bigint;
  min_sequence_number: bigint;
  added_snapshot_id: bigint;
  added_files_count: number;
  existing_files_count: number;
  deleted_files_count: number;
  added_rows_count: bigint;
  existing_rows_count: bigint;
  deleted_rows_count: bigint;
  partitions: Array<{
    contains_null: boolean;
    contains_nan: boolean | null;
    lower_bound: Buffer | null;
    upper_bound: Buffer | null;
  }> | null;
  key_metadata: Buffer | null;
}

/** The object container file's header (Avro spec): avsc drops field attributes such as field-id from its own. */
const HEADER = avro.Type.forSchema({
  type: 'record',
  name: 'org.apache.avro.file.Header',
  fields: [
    { name: 'magic', type: { type: 'fixed', name: 'Magic', size: 4 } },
    { name: 'meta', type: { type: 'map', values: 'bytes' } },
    { name: 'sync', type: { type: 'fixed', name: 'Sync', size: 16 } },
  ],
});

function encode(
  schema: object,
  type: avro.Type,
  records: unknown[],
  metadata: Record<string, string>,
): Promise<Buffer> {
  const sync = randomBytes(16);
  const header = HEADER.toBuffer({
    magic: Buffer.from('Obj\x01', 'latin1'),
    meta: Object.fromEntries(
      Object.entries({ ...metadata, 'avro.schema': JSON.stringify(schema), 'avro.codec': 'deflate' }).map(([k, v]) => [
        k,
        Buffer.from(v),
      ]),
    ),
    sync,
  });
  return new Promise((resolve, reject) => {
    const encoder = new avro.streams.BlockEncoder(type, { codec: 'deflate', writeHeader: 'never', syncMarker: sync });
    const chunks: Buffer[] = [header];
    encoder.on('data', (c: Buffer) => chunks.push(c));
    encoder.on('error', reject);
    encoder.on('end', () => resolve(Buffer.concat(chunks)));
    for (const r of records) encoder.write(r);
    encoder.end();
  });
}

/** A manifest of ADDED data files (status 1) of `snapshotId`; their sequence numbers are inherited from the list. */
export function writeManifest(
  files: DataFileEntry[],
  snapshotId: bigint,
  meta: { schema: string; schemaId: number },
): Promise<Buffer> {
  return encode(
    MANIFEST_ENTRY_SCHEMA,
    MANIFEST_ENTRY,
    files.map((f) => ({
      status: 1,
      snapshot_id: snapshotId,
      sequence_number: null,
      file_sequence_number: null,
      data_file: {
        content: 0,
        file_path: f.path,
        file_format: 'PARQUET',
        partition: {},
        record_count: BigInt(f.rows),
        file_size_in_bytes: BigInt(f.bytes),
      },
    })),
    {
      schema: meta.schema,
      'schema-id': String(meta.schemaId),
      'partition-spec': '[]',
      'partition-spec-id': '0',
      'format-version': '2',
      content: 'data',
    },
  );
}

export function writeManifestList(
  manifests: ManifestFile[],
  meta: { snapshotId: bigint; parentSnapshotId: bigint | null; sequenceNumber: bigint },
): Promise<Buffer> {
  return encode(MANIFEST_FILE_SCHEMA, MANIFEST_FILE, manifests, {
    'snapshot-id': String(meta.snapshotId),
    'parent-snapshot-id': meta.parentSnapshotId === null ? 'null' : String(meta.parentSnapshotId),
    'sequence-number': String(meta.sequenceNumber),
    'format-version': '2',
  });
}

/** The manifests a manifest list names (written by any v2 writer), in this module's shape. */
export function readManifestList(bytes: Buffer): Promise<ManifestFile[]> {
  return new Promise((resolve, reject) => {
    const decoder = new avro.streams.BlockDecoder({ parseHook: (schema) => typeOf(schema as object) });
    const out: ManifestFile[] = [];
    decoder.on('data', (r: Record<string, unknown>) => {
      const big = (k: string) => (typeof r[k] === 'bigint' ? (r[k] as bigint) : BigInt((r[k] as number) ?? 0));
      const parts = r['partitions'] as Array<Record<string, unknown>> | null | undefined;
      out.push({
        manifest_path: r['manifest_path'] as string,
        manifest_length: big('manifest_length'),
        partition_spec_id: r['partition_spec_id'] as number,
        content: (r['content'] as number | undefined) ?? 0,
        sequence_number: big('sequence_number'),
        min_sequence_number: big('min_sequence_number'),
        added_snapshot_id: big('added_snapshot_id'),
        added_files_count: (r['added_files_count'] as number | undefined) ?? 0,
        existing_files_count: (r['existing_files_count'] as number | undefined) ?? 0,
        deleted_files_count: (r['deleted_files_count'] as number | undefined) ?? 0,
        added_rows_count: big('added_rows_count'),
        existing_rows_count: big('existing_rows_count'),
        deleted_rows_count: big('deleted_rows_count'),
        partitions:
          parts?.map((p) => ({
            contains_null: p['contains_null'] as boolean,
            contains_nan: (p['contains_nan'] as boolean | null | undefined) ?? null,
            lower_bound: (p['lower_bound'] as Buffer | null | undefined) ?? null,
            upper_bound: (p['upper_bound'] as Buffer | null | undefined) ?? null,
          })) ?? null,
        key_metadata: (r['key_metadata'] as Buffer | null | undefined) ?? null,
      });
    });
    decoder.on('error', reject);
    decoder.on('end', () => resolve(out));
    decoder.end(bytes);
  });
}
