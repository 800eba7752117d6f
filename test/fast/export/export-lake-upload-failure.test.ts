// A lake file's upload runs while the next partition's file is made (export/targets/lake.ts): when that upload fails
// (here a regular file stands where the first partition's folder goes), the export fails with the upload's own
// error, writes no manifest, leaves the watermark and no partial file behind, and the same run exported again
// writes every partition; pyarrow reads each product once.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import type { Database } from '../../../destinations/contract.js';
import { exportToLake, type LakeManifest } from '../../../export/targets/lake.js';
import { readFilesWithPyarrow } from '../../support/lake-readers.js';
import { filesUnder, loadMarketplaceProduct } from '../../support/lake-fixtures.js';

let dir: string;
let db: Database;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-lake-upload-failure-'));
  db = await openDatabase(`sqlite:${join(dir, 'db.sqlite')}`);
});
afterAll(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

async function loadProduct(i: number, shopId: number): Promise<void> {
  await loadMarketplaceProduct(db, { pipeline: 'u', itemId: 9_300_000_000_000 + i, shopId, requestKey: `u${i}` });
}

describe('a lake upload that fails while the next file is made', () => {
  it('fails the export with its error, leaves no manifest, watermark or partial file, and a retry completes', async () => {
    for (let i = 0; i < 6; i++) await loadProduct(i, 7 + (i % 3));
    const lake = join(dir, 'lake');
    const table = join(lake, 'u', 'marketplace_products');
    const blocked = join(table, 'load_date=2026-11-01', 'shop_id=7');
    await mkdir(join(table, 'load_date=2026-11-01'), { recursive: true });
    await writeFile(blocked, 'not a folder');
    const run = () =>
      exportToLake(db, {
        to: lake,
        pipeline: 'u',
        format: 'parquet',
        tables: ['marketplace_products'],
        partitionBy: ['shop_id'],
        runId: 'u--run-1',
        timestamp: new Date('2026-11-01T10:00:00Z'),
      });

    await expect(run()).rejects.toThrow(/ENOTDIR|EEXIST|not a directory/);
    expect(await filesUnder(lake)).toEqual(['u/marketplace_products/load_date=2026-11-01/shop_id=7']);
    if (db.dialect !== 'sqlite') throw new Error('sqlite only');
    expect(db.sqlite.prepare(`select count(*) as n from export_watermarks`).get()).toEqual({ n: 0 });

    await rm(blocked);
    const report = await run();
    expect(report.files.map((f) => [f.table, f.rows])).toEqual([['marketplace_products', 6]]);
    const manifest = JSON.parse(await readFile(join(table, '_manifests', 'u--run-1.json'), 'utf8')) as LakeManifest;
    const read = readFilesWithPyarrow(
      manifest.files.map((f) => join(lake, f.key)),
      ['item_id'],
    );
    expect(read.rows).toHaveLength(6);
    expect(new Set(read.rows.map((r) => String(r['item_id']))).size).toBe(6);
    const files = await filesUnder(lake);
    expect(files.filter((f) => f.endsWith('.parquet'))).toHaveLength(3);
    expect(files).toContain('u/marketplace_products/_manifests/u--run-1.json');
  });
});
