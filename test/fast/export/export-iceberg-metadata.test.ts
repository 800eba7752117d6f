// The pure parts of the lake's Iceberg tables (export/targets/iceberg/): the Avro manifest and manifest list, read
// back by pyiceberg's own Avro reader (64-bit snapshot ids exact), the schema evolution and name mapping, and
// `table_format:` in a pipeline file with each mistake named. The commit against a real catalog is
// test/integration/export/export-iceberg.test.ts.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readManifestList, writeManifest, writeManifestList } from '../../../export/targets/iceberg/avro-files.js';
import { evolveSchema, nameMapping } from '../../../export/targets/iceberg/table-schema.js';
import { PipelineFileError } from '../../../pipelines/errors.js';
import { parsePipelineText } from '../../../pipelines/loader.js';
import { pythonReadersEnv } from '../../support/python-readers.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'iceberg-metadata-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const COLUMNS = [
  { name: 'id', type: 'int64' },
  { name: 'title', type: 'text' },
  { name: 'label_ids', type: 'json', list: 'int64' },
  { name: 'loaded_at', type: 'timestamp_utc' },
];

describe('the Avro files of a snapshot', () => {
  it('pyiceberg reads the manifest list and its manifest as written, 64-bit ids exact', async () => {
    const snapshotId = 9_007_199_254_740_993n; // 2^53 + 1: a JS number would round it
    const parentId = 8_765_432_109_876_543_210n;
    const manifestPath = path.join(dir, 'm0.avro');
    const schema = { type: 'struct', 'schema-id': 0, fields: evolveSchema(undefined, 0, COLUMNS, 't').fields };
    const manifest = await writeManifest(
      [
        { path: 's3://lake/p/t/part-a-00000.parquet', rows: 3, bytes: 1234 },
        { path: 's3://lake/p/t/part-a-00001.parquet', rows: 5_000_000_000, bytes: 9_000_000_000 },
      ],
      snapshotId,
      { schema: JSON.stringify(schema), schemaId: 0 },
    );
    writeFileSync(manifestPath, manifest);
    const earlier = {
      manifest_path: path.join(dir, 'earlier.avro'),
      manifest_length: 10n,
      partition_spec_id: 0,
      content: 0,
      sequence_number: 1n,
      min_sequence_number: 1n,
      added_snapshot_id: parentId,
      added_files_count: 1,
      existing_files_count: 0,
      deleted_files_count: 0,
      added_rows_count: 7n,
      existing_rows_count: 0n,
      deleted_rows_count: 0n,
      partitions: null,
      key_metadata: null,
    };
    const list = await writeManifestList(
      [
        {
          ...earlier,
          manifest_path: manifestPath,
          manifest_length: BigInt(manifest.length),
          sequence_number: 2n,
          min_sequence_number: 2n,
          added_snapshot_id: snapshotId,
          added_files_count: 2,
          added_rows_count: 5_000_000_003n,
        },
        earlier,
      ],
      { snapshotId, parentSnapshotId: parentId, sequenceNumber: 2n },
    );
    const listPath = path.join(dir, 'snap.avro');
    writeFileSync(listPath, list);
    // The module's own reader (used for a parent's list) gives back what was written.
    expect((await readManifestList(list)).map((m) => m.added_snapshot_id)).toEqual([snapshotId, parentId]);

    const script = `
import json, sys
from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.manifest import read_manifest_list
io = PyArrowFileIO()
lists = list(read_manifest_list(io.new_input(sys.argv[1])))
entries = lists[0].fetch_manifest_entry(io, discard_deleted=True)
json.dump({
  "list": [[m.manifest_path, str(m.added_snapshot_id), m.sequence_number, m.added_files_count, str(m.added_rows_count)] for m in lists],
  "entries": [[str(e.status.value), str(e.snapshot_id), e.sequence_number, e.data_file.file_path, e.data_file.file_format.value, str(e.data_file.record_count), str(e.data_file.file_size_in_bytes)] for e in entries],
}, sys.stdout)
`;
    const read = JSON.parse(
      execFileSync('python3', ['-c', script, listPath], { env: pythonReadersEnv(), encoding: 'utf8' }),
    ) as { list: unknown[]; entries: unknown[] };
    expect(read.list).toEqual([
      [manifestPath, String(snapshotId), 2, 2, '5000000003'],
      [earlier.manifest_path, String(parentId), 1, 1, '7'],
    ]);
    // ADDED entries inherit the manifest's sequence number (2) from the list.
    expect(read.entries).toEqual([
      ['1', String(snapshotId), 2, 's3://lake/p/t/part-a-00000.parquet', 'PARQUET', '3', '1234'],
      ['1', String(snapshotId), 2, 's3://lake/p/t/part-a-00001.parquet', 'PARQUET', '5000000000', '9000000000'],
    ]);
  });
});

describe('a table schema evolved by runs', () => {
  it('keeps field ids, appends new columns after the last id, and maps file names to ids', () => {
    const first = evolveSchema(undefined, 0, COLUMNS, 'p.t');
    expect(first.fields.map((f) => [f.id, f.name, f.type])).toEqual([
      [1, 'id', 'long'],
      [2, 'title', 'string'],
      [3, 'label_ids', { type: 'list', 'element-id': 4, element: 'long', 'element-required': false }],
      [5, 'loaded_at', 'timestamptz'],
    ]);
    expect(first.changed).toBe(true);
    const same = evolveSchema({ type: 'struct', fields: first.fields }, first.lastColumnId, COLUMNS, 'p.t');
    expect(same.changed).toBe(false);
    const more = evolveSchema(
      { type: 'struct', fields: first.fields },
      first.lastColumnId,
      [...COLUMNS.slice(0, 2), { name: 'note', type: 'text' }],
      'p.t',
    );
    expect(more.changed).toBe(true);
    expect(more.fields.map((f) => [f.id, f.name])).toEqual([
      [1, 'id'],
      [2, 'title'],
      [3, 'label_ids'],
      [5, 'loaded_at'],
      [6, 'note'],
    ]);
    expect(JSON.parse(nameMapping(more.fields))).toContainEqual({
      'field-id': 3,
      names: ['label_ids'],
      fields: [{ 'field-id': 4, names: ['element'] }],
    });
  });

  it('refuses a column whose type changed, naming the table, the column and both types', () => {
    const first = evolveSchema(undefined, 0, COLUMNS, 'p.t');
    expect(() =>
      evolveSchema({ type: 'struct', fields: first.fields }, first.lastColumnId, [{ name: 'id', type: 'text' }], 'p.t'),
    ).toThrow(/export: Iceberg table p\.t: column "id" is long in the table but this run writes string/);
  });
});

describe('table_format in a pipeline file', () => {
  const head = 'name: m\nkind: marketplace\nrequest: {urls: ["https://shopee.tw/api/v2/item/get?itemid=1&shopid=2"]}\n';
  const errorsOf = (exportsYaml: string): string => {
    try {
      parsePipelineText(`${head}exports:\n${exportsYaml}`, 'p.yaml', { env: {} });
    } catch (err) {
      if (err instanceof PipelineFileError) return err.message;
      throw err;
    }
    throw new Error('expected the file to be rejected');
  };

  it('takes table_format: iceberg on a Parquet export to s3://', () => {
    const spec = parsePipelineText(
      `${head}exports:\n  - {to: s3://analytics/scrape, format: parquet, table_format: iceberg}\n`,
      'p.yaml',
      { env: {} },
    );
    expect(spec.exports[0]).toMatchObject({ to: 's3://analytics/scrape', table_format: 'iceberg' });
  });

  it('names each mistake with its position and the fix', () => {
    expect(errorsOf('  - {dir: out, table_format: iceberg}\n')).toMatch(
      /exports\[0\]\.table_format: applies to lake exports/,
    );
    expect(errorsOf('  - {to: lake, format: parquet, table_format: iceberg}\n')).toMatch(
      /exports\[0\]\.table_format: iceberg tables reference files on object storage: write to: s3:\/\//,
    );
    expect(errorsOf('  - {to: s3://bucket/x, format: csv, table_format: iceberg}\n')).toMatch(
      /exports\[0\]\.format: table_format: iceberg needs format: parquet/,
    );
    expect(
      errorsOf('  - {to: s3://bucket/x, format: parquet, table_format: iceberg, partition_by: [shop_id]}\n'),
    ).toMatch(/exports\[0\]\.partition_by: table_format: iceberg writes unpartitioned tables/);
    expect(
      errorsOf('  - {to: s3://bucket/x, format: parquet, table_format: iceberg}\nretention: {exports: 3}\n'),
    ).toMatch(
      /retention\.exports: exports\[0\] commits to an iceberg table whose snapshots reference the lake's files/,
    );
    expect(errorsOf('  - {to: s3://bucket/x, format: parquet, table_format: delta}\n')).toMatch(
      /p\.yaml:\d+:\d+: exports\[0\]\.table_format/,
    );
  });
});
