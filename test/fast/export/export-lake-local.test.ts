// The lake on a local folder (export/targets/lake.ts): hive partitions per pipeline, table and load date, a
// manifest per run and table written last, each run adding only the rows new since the last export to that target,
// the same keys again on a retry, partition columns in the path, a killed attempt's partial file removed, and
// retention by manifest. Read by pyarrow datasets and DuckDB's read_parquet(hive_partitioning), not by our code.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import type { Database } from '../../../destinations/contract.js';
import { exportToLake, type LakeManifest } from '../../../export/targets/lake.js';
import { pruneLake } from '../../../export/targets/lake-retention.js';
import { readLakeWithDuckdb, readLakeWithPyarrow } from '../../support/lake-readers.js';
import { filesUnder, loadMarketplaceProduct } from '../../support/lake-fixtures.js';

let dir: string;
let db: Database;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-lake-local-'));
  db = await openDatabase(`sqlite:${join(dir, 'db.sqlite')}`);
});
afterAll(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

async function loadProduct(i: number, shopId: number): Promise<void> {
  await loadMarketplaceProduct(db, { pipeline: 'p', itemId: 9_000_000_000_000 + i, shopId, requestKey: `u${i}` });
}

async function count(table: string): Promise<number> {
  const row =
    db.dialect === 'sqlite'
      ? (db.sqlite.prepare(`select count(*) as n from "${table}" where pipeline = 'p'`).get() as { n: number | bigint })
      : undefined;
  return Number(row!.n);
}

describe('the lake on a local folder', () => {
  const lake = () => join(dir, 'lake');
  const day1 = new Date('2026-11-01T10:00:00Z');
  const day2 = new Date('2026-11-02T10:00:00Z');

  it('writes hive partitions and a manifest per table that pyarrow and DuckDB read with one schema', async () => {
    await loadProduct(0, 7);
    await loadProduct(1, 8);
    const report = await exportToLake(db, {
      to: lake(),
      pipeline: 'p',
      format: 'parquet',
      runId: 'p--run-1',
      timestamp: day1,
    });
    expect(report.files.map((f) => f.table)).toContain('marketplace_products');
    const files = await filesUnder(lake());
    expect(files).toContain('p/marketplace_products/load_date=2026-11-01/part-p--run-1-00000.parquet');
    expect(files).toContain('p/marketplace_products/_manifests/p--run-1.json');

    const manifest = JSON.parse(
      await readFile(join(lake(), 'p/marketplace_products/_manifests/p--run-1.json'), 'utf8'),
    ) as LakeManifest;
    expect(manifest).toMatchObject({
      pipeline: 'p',
      table: 'marketplace_products',
      run: 'p--run-1',
      load_date: '2026-11-01',
      rows: 2,
      format: 'parquet',
    });
    const file = manifest.files[0]!;
    const bytes = await readFile(join(lake(), file.key));
    expect({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }).toEqual({
      bytes: file.bytes,
      sha256: file.sha256,
    });
    expect(manifest.schema.find((c) => c.name === 'label_ids')).toEqual({
      name: 'label_ids',
      type: 'json',
      list: 'int64',
    });

    const read = readLakeWithPyarrow(lake(), 'p');
    for (const f of report.files)
      expect({ table: f.table, rows: read[f.table]?.rows }).toEqual({ table: f.table, rows: await count(f.table) });
    const schema = Object.fromEntries(read['marketplace_products']!.schema);
    expect(schema).toMatchObject({ item_id: 'int64', label_ids: 'list<element: int64>', load_date: 'string' });
    const duck = readLakeWithDuckdb(lake(), 'p', ['marketplace_products']);
    expect(duck['marketplace_products']!.rows).toBe(2);
    expect(Object.fromEntries(duck['marketplace_products']!.columns)).toMatchObject({
      label_ids: 'BIGINT[]',
      load_date: 'DATE',
    });
  });

  it('adds only the new rows on the next run; a run with none writes nothing', async () => {
    const none = await exportToLake(db, {
      to: lake(),
      pipeline: 'p',
      format: 'parquet',
      runId: 'p--run-2',
      timestamp: day2,
    });
    expect(none.files).toEqual([]);
    expect(none.unchanged).toContain('marketplace_products');
    await loadProduct(2, 7);
    const report = await exportToLake(db, {
      to: lake(),
      pipeline: 'p',
      format: 'parquet',
      runId: 'p--run-3',
      timestamp: day2,
    });
    expect(report.files.find((f) => f.table === 'marketplace_products')?.rows).toBe(1);
    const read = readLakeWithPyarrow(lake(), 'p', { keyColumns: { marketplace_products: ['shop_id', 'item_id'] } });
    expect(read['marketplace_products']!.rows).toBe(await count('marketplace_products'));
    expect(read['marketplace_products']!.loadDates).toEqual(['2026-11-01', '2026-11-02']);
    const keys = read['marketplace_products']!.keys!;
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('a retried run writes the same keys again and removes what its killed attempt left', async () => {
    const before = await filesUnder(lake());
    const again = await exportToLake(db, {
      to: lake(),
      pipeline: 'p',
      format: 'parquet',
      runId: 'p--run-3',
      timestamp: day2,
    });
    expect(again.files.find((f) => f.table === 'marketplace_products')?.rows).toBe(1);
    expect(await filesUnder(lake())).toEqual(before);

    // A new run killed in the middle of writing a file: its hidden partial file, then the retry of that run.
    await loadProduct(3, 9);
    const partial = join(
      lake(),
      'p/marketplace_products/load_date=2026-11-02/.part-p--run-4-00000.parquet~host~1~abcd.partial',
    );
    await writeFile(partial, 'half a file');
    await exportToLake(db, { to: lake(), pipeline: 'p', format: 'parquet', runId: 'p--run-4', timestamp: day2 });
    const after = await filesUnder(lake());
    expect(after.filter((f) => f.endsWith('.partial'))).toEqual([]);
    expect(readLakeWithPyarrow(lake(), 'p')['marketplace_products']!.rows).toBe(await count('marketplace_products'));
  });

  it('partition_by puts the columns in the path, not in the files', async () => {
    const to = join(dir, 'by-shop');
    await mkdir(to);
    await exportToLake(db, {
      to,
      pipeline: 'p',
      format: 'parquet',
      tables: ['marketplace_products'],
      partitionBy: ['shop_id'],
      runId: 'p--run-5',
      timestamp: day2,
    });
    const files = await filesUnder(to);
    expect(files.filter((f) => f.endsWith('.parquet'))).toEqual([
      'p/marketplace_products/load_date=2026-11-02/shop_id=7/part-p--run-5-00000.parquet',
      'p/marketplace_products/load_date=2026-11-02/shop_id=8/part-p--run-5-00001.parquet',
      'p/marketplace_products/load_date=2026-11-02/shop_id=9/part-p--run-5-00002.parquet',
    ]);
    const duck = readLakeWithDuckdb(to, 'p', ['marketplace_products']);
    expect(duck['marketplace_products']!.rows).toBe(await count('marketplace_products'));
    expect(duck['marketplace_products']!.columns.filter(([n]) => n === 'shop_id')).toHaveLength(1);
    await expect(
      exportToLake(db, {
        to,
        pipeline: 'p',
        tables: ['marketplace_products'],
        partitionBy: ['nope'],
        runId: 'x',
        timestamp: day2,
      }),
    ).rejects.toThrow(/partition_by column "nope" is not a column of table "marketplace_products"/);
  });

  it('retention keeps the newest runs by manifest, deleting the manifest before its files', async () => {
    const out = await pruneLake({ to: lake(), pipeline: 'p', keep: 1 });
    expect(out.deleted.some((f) => f.endsWith('p/marketplace_products/_manifests/p--run-1.json'))).toBe(true);
    const files = await filesUnder(lake());
    expect(files.filter((f) => f.startsWith('p/marketplace_products/'))).toEqual([
      'p/marketplace_products/_manifests/p--run-4.json',
      'p/marketplace_products/load_date=2026-11-02/part-p--run-4-00000.parquet',
    ]);
  });
});
