// Lake exports in a pipeline file (issue #38): `to:` (s3://bucket/prefix or a folder) instead of `dir:`, with
// `partition_by`; every mistake named at its file:line:col with the fix.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PipelineFileError } from '../../../pipelines/errors.js';
import { loadPipelineFile, parsePipelineText } from '../../../pipelines/loader.js';

const head = 'name: m\nkind: marketplace\nrequest: {urls: ["https://shopee.tw/api/v2/item/get?itemid=1&shopid=2"]}\n';

function errorsOf(exportsYaml: string): string {
  try {
    parsePipelineText(`${head}exports:\n${exportsYaml}`, 'p.yaml', { env: {} });
  } catch (err) {
    if (err instanceof PipelineFileError) return err.message;
    throw err;
  }
  throw new Error('expected the file to be rejected');
}

describe('lake exports in a pipeline file', () => {
  it('takes to: s3://… with format and partition_by', () => {
    const spec = parsePipelineText(
      `${head}exports:\n  - {to: s3://analytics/scrape, format: parquet, partition_by: [shop_id]}\n`,
      'p.yaml',
      { env: {} },
    );
    expect(spec.exports[0]).toMatchObject({
      to: 's3://analytics/scrape',
      format: 'parquet',
      partition_by: ['shop_id'],
    });
    expect(spec.exports[0]!.dir).toBeUndefined();
  });

  it('takes snapshot: true with to:, and names it on a dir: export', () => {
    const spec = parsePipelineText(
      `${head}exports:\n  - {to: s3://analytics/scrape, format: parquet, snapshot: true}\n`,
      'p.yaml',
      {
        env: {},
      },
    );
    expect(spec.exports[0]).toMatchObject({ to: 's3://analytics/scrape', snapshot: true });
    expect(errorsOf('  - {dir: out, snapshot: true}\n')).toMatch(
      /p\.yaml:\d+:\d+: exports\[0\]\.snapshot: applies to lake exports \(to: s3:\/\/bucket\/prefix or a folder\) only/,
    );
    expect(errorsOf('  - {to: s3://bucket/x, snapshot: yes please}\n')).toMatch(/exports\[0\]\.snapshot/);
  });

  it('names each mistake with its position and the fix', () => {
    expect(errorsOf('  - {format: parquet}\n')).toMatch(
      /p\.yaml:\d+:\d+: exports\[0\]\.to: an export needs dir: \(a folder of files\) or to: \(the lake/,
    );
    expect(errorsOf('  - {dir: out, to: s3://b-1/x}\n')).toMatch(/exports\[0\]\.dir: give dir: or to:, not both/);
    expect(errorsOf('  - {to: gs://b/x}\n')).toMatch(
      /exports\[0\]\.to: .*gs:\/\/ is not supported\); write s3:\/\/<bucket>\/<prefix> or a folder/,
    );
    expect(errorsOf('  - {to: s3://B_ad/x}\n')).toMatch(/exports\[0\]\.to: B_ad is not an S3 bucket name/);
    expect(errorsOf('  - {to: s3://bucket/a/../b}\n')).toMatch(/must not hold empty, '\.' or '\.\.' parts/);
    expect(errorsOf('  - {dir: out, partition_by: [shop_id]}\n')).toMatch(
      /exports\[0\]\.partition_by: applies to lake exports/,
    );
    expect(errorsOf('  - {to: s3://bucket/x, mode: incremental}\n')).toMatch(
      /exports\[0\]\.mode: a lake export always writes each run's new and changed rows/,
    );
    expect(errorsOf('  - {to: s3://bucket/x, file_name: "{table}.parquet"}\n')).toMatch(
      /exports\[0\]\.file_name: a lake export names its files part-<run>-<part>/,
    );
    expect(errorsOf('  - {to: s3://bucket/x, partition_by: [load_date]}\n')).toMatch(
      /load_date is always the first partition/,
    );
  });

  it('keeps a lake in a local folder inside the project, as dir: is', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'lake-confine-'));
    try {
      writeFileSync(path.join(root, 'scrape-etl.yaml'), 'pipelines: ["*.yaml"]\n');
      writeFileSync(path.join(root, 'in.yaml'), `${head}exports:\n  - {to: lake, format: parquet}\n`);
      expect((await loadPipelineFile(path.join(root, 'in.yaml'), { env: {} })).exports[0]!.to).toBe(
        path.join(root, 'lake'),
      );
      writeFileSync(path.join(root, 'out.yaml'), `${head}exports:\n  - {to: ../elsewhere, format: parquet}\n`);
      await expect(loadPipelineFile(path.join(root, 'out.yaml'), { env: {} })).rejects.toThrow(
        /out\.yaml:5:\d+: exports\[0\]\.to: the export folder .* is not in the project/,
      );
      writeFileSync(path.join(root, 's3.yaml'), `${head}exports:\n  - {to: s3://bucket/x, format: parquet}\n`);
      expect((await loadPipelineFile(path.join(root, 's3.yaml'), { env: {} })).exports[0]!.to).toBe('s3://bucket/x');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
