// The standard behaviours every destination adapter (destinations/<name>/) must show, run against the real database
// by one file per destination (test/destinations/<name>.test.ts), as test/integration/temporal/temporal-contract.test.ts runs every kind.
// A new destination passes this suite before anything else uses it. Each case opens a fresh database from the
// factory; the claims of the adapter's capabilities are checked against what the database actually does.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../lib/json.js';
import { marketplaceResponseSchema, type ResultRecord } from '../../client/schemas.js';
import { openDatabase, probeDatabase, type Database } from '../../destinations/open.js';
import { loadBatch, loadBatches, type LoadBatchOptions } from '../../db/store/load.js';
import { resultsPage } from '../support/results-page.js';
import { pruneRawResponses } from '../../db/store/retention.js';
import { quoteIdent, withReadTransaction, withTransaction, type Param, type Tx } from '../../db/store/sql.js';
import { commitSyncWatermark, readSyncWatermark } from '../../db/store/sync-watermarks.js';
import { DESTINATIONS, destinationOf, type DestinationName } from '../../destinations/index.js';
import { generateProduct } from '../../simulator/generate/marketplace.js';

const REPO_ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

/** A fresh, empty destination URL (a new file in `dir`, or a new Postgres database). */
export type DestinationFactory = (dir: string, name: string) => Promise<string>;

let nextResultId = 5000;

function result(content: unknown, id = nextResultId++): ResultRecord {
  return {
    id,
    scraper_id: 1,
    scraping_run_id: 77,
    scraper_name: 'suite',
    scraped_url: `https://x.example/${id}`,
    status: 'succeeded',
    content,
    created_at: '2026-01-01T00:00:00.000000Z',
    updated_at: '2026-01-01T00:00:00.000000Z',
  } as unknown as ResultRecord;
}

function resultsBatch(pipeline: string, records: ResultRecord[], mergeKey?: string[]): LoadBatchOptions {
  return resultsPage({
    pipeline,
    raw: stringifyJson({ data: records }),
    table: `${pipeline}_items`,
    requestKey: `page-${records[0]?.id ?? 0}`,
    mergeKey,
  });
}

/** A generated marketplace product (the simulator's generator) as a batch of pipeline `shop`. */
function product(itemId: number, priceBump = 0): LoadBatchOptions {
  const url = `https://shop.example.tw/api/v4/pdp/get_pc?itemid=${itemId}&shopid=77`;
  const doc = parseJson(stringifyJson(generateProduct(5, { url, itemId, shopId: 77 }))) as {
    data: { data: { item: Record<string, unknown> } };
  };
  if (priceBump) doc.data.data.item['price'] = Number(doc.data.data.item['price']) + priceBump;
  const raw = stringifyJson(doc);
  return {
    pipeline: 'shop',
    kind: 'marketplace',
    endpoint: 'POST /api/marketplace/sync',
    requestKey: url,
    raw,
    data: marketplaceResponseSchema.parse(parseJson(raw)),
  };
}

async function rows(db: Database, sql: string, params: Param[] = []): Promise<Array<Record<string, unknown>>> {
  return withReadTransaction(db, (tx) => tx.all(sql, params));
}

async function count(db: Database, table: string, where = '', params: Param[] = []): Promise<number> {
  const [r] = await rows(db, `SELECT count(*) AS n FROM ${quoteIdent(table)}${where ? ` WHERE ${where}` : ''}`, params);
  return Number(r?.['n']);
}

async function tables(db: Database): Promise<string[]> {
  return (await rows(db, destinationOf(db).catalog.tablesSql)).map((r) => String(r['name']));
}

async function columns(db: Database, table: string): Promise<string[]> {
  const dest = destinationOf(db);
  return (await rows(db, dest.catalog.columnsSql(dest.sql.ph(1)), [table])).map((r) => String(r['name']));
}

export function adapterSuite(name: DestinationName, factory: DestinationFactory): void {
  const adapter = DESTINATIONS[name];
  const caps = adapter.capabilities;
  let dir: string;
  const open: Database[] = [];
  let n = 0;

  /** A fresh database of this destination, closed after the suite. */
  async function fresh(): Promise<{ db: Database; url: string }> {
    const url = await factory(dir, `db${++n}`);
    const db = await openDatabase(url);
    open.push(db);
    return { db, url };
  }

  describe(`destination adapter: ${name}`, () => {
    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `adapter-${name}-`));
    });
    afterAll(async () => {
      for (const db of open) await db.close().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('is the registry entry of its name and parses its own URLs', async () => {
      const { db, url } = await fresh();
      expect(db.dialect).toBe(name);
      expect(destinationOf(db)).toBe(adapter);
      expect(adapter.parseUrl(url)?.dialect).toBe(name);
      // No other adapter claims the URL.
      for (const other of Object.values(DESTINATIONS))
        if (other !== adapter) expect(other.parseUrl(url)).toBeUndefined();
      expect(adapter.fileOf(adapter.parseUrl(url) as never) === undefined).toBe(caps.server);
    });

    it('opens and migrates idempotently; the probe passes on what it opened', async () => {
      const { db, url } = await fresh();
      const before = await tables(db);
      for (const t of ['pipeline_runs', 'raw_responses', 'schema_history', 'export_watermarks', 'sync_watermarks'])
        expect(before).toContain(t);
      await db.close();
      const again = await openDatabase(url);
      open.push(again);
      expect(await tables(again)).toEqual(before);
      await expect(probeDatabase(url)).resolves.toBeUndefined();
    });

    it('a rolled-back transaction leaves nothing; a committed one stays', async () => {
      const { db } = await fresh();
      await expect(
        withTransaction(db, async (tx) => {
          await tx.run(
            `INSERT INTO sync_watermarks (pipeline, stream, watermark, updated_at) VALUES (${tx.ph(1)}, ${tx.ph(2)}, ${tx.ph(3)}, ${tx.ph(4)})`,
            ['p', 's', '1', new Date().toISOString()],
          );
          throw new Error('injected');
        }),
      ).rejects.toThrow('injected');
      expect(await readSyncWatermark(db, 'p', 's')).toBeNull();
      await commitSyncWatermark(db, 'p', 's', '18446744073709551615');
      // Forward only, compared as integers beyond 2^64 (exactInteger).
      await commitSyncWatermark(db, 'p', 's', '9');
      expect(await readSyncWatermark(db, 'p', 's')).toBe('18446744073709551615');
    });

    it(`savepoints: ${caps.savepoints ? 'a failed savepoint rolls back alone' : 'refused, as claimed'}`, async () => {
      const { db } = await fresh();
      const insert = (tx: Tx, stream: string) =>
        tx.run(
          `INSERT INTO sync_watermarks (pipeline, stream, watermark, updated_at) VALUES (${tx.ph(1)}, ${tx.ph(2)}, ${tx.ph(3)}, ${tx.ph(4)})`,
          ['p', stream, '1', new Date().toISOString()],
        );
      if (caps.savepoints) {
        await withTransaction(db, async (tx) => {
          await insert(tx, 'kept');
          await expect(
            tx.savepoint(async () => {
              await insert(tx, 'dropped');
              throw new Error('injected');
            }),
          ).rejects.toThrow('injected');
        });
        expect(await readSyncWatermark(db, 'p', 'kept')).toBe('1');
        expect(await readSyncWatermark(db, 'p', 'dropped')).toBeNull();
      } else {
        await expect(withTransaction(db, async (tx) => tx.run('SAVEPOINT suite_sp', []))).rejects.toThrow();
      }
    });

    it('upserts by merge key: one row per key, the newer result wins', async () => {
      const { db } = await fresh();
      await loadBatch(
        db,
        resultsBatch(
          'merge',
          [result({ email: 'a@x', name: 'old' }, 100), result({ email: 'b@x', name: 'b' }, 101)],
          ['email'],
        ),
      );
      await loadBatch(db, resultsBatch('merge', [result({ email: 'a@x', name: 'new' }, 102)], ['email']));
      // An older result of the same key does not overwrite the newer one.
      await loadBatch(db, resultsBatch('merge', [result({ email: 'a@x', name: 'stale' }, 99)], ['email']));
      const ph = adapter.sql.ph(1);
      expect(await count(db, 'merge_items')).toBe(2);
      expect(
        (await rows(db, `SELECT name FROM merge_items WHERE email = ${ph}`, ['a@x'])).map((r) => r['name']),
      ).toEqual(['new']);
    });

    it('schema evolution adds columns and child tables, hostile names within the identifier capability', async () => {
      const { db } = await fresh();
      const long = `k${'é'.repeat(120)}`; // 241 bytes: past every destination's limit
      const reserved = [...caps.reservedNames];
      const content = {
        id: 'r1',
        [long]: 'long-value',
        'quote"d': 'q',
        'ключ данных': 'u',
        '🙂': 'emoji',
        tags: [{ t: 'a' }, { t: 'b' }],
        ...Object.fromEntries(reserved.map((r) => [r, `sys-${r}`])),
      };
      const out = await loadBatch(db, resultsBatch('evo', [result(content)]));
      expect(out.schemaChanges.length).toBeGreaterThan(0);
      const cols = await columns(db, 'evo_items');
      for (const c of cols) expect(Buffer.byteLength(c, 'utf8')).toBeLessThanOrEqual(caps.maxIdentifierBytes);
      for (const r of reserved) expect(cols).not.toContain(r);
      // Keys become snake_case names (letters of any script kept); a quote never reaches an identifier from a key.
      expect(cols).toContain('quote_d');
      expect(cols).toContain('ключ_данных');
      const [row] = await rows(db, 'SELECT * FROM evo_items');
      const values = Object.values(row ?? {}).map(String);
      for (const v of ['long-value', 'q', 'u', 'emoji', ...reserved.map((r) => `sys-${r}`)])
        expect(values).toContain(v);
      const children = (await tables(db)).filter((t) => t.startsWith('evo_items__'));
      expect(children.length).toBe(1);
      expect(await count(db, children[0]!)).toBe(2);
      // A later batch with a new field adds a column; the old rows read it as NULL.
      await loadBatch(db, resultsBatch('evo', [result({ id: 'r2', added: 7 })]));
      expect(await columns(db, 'evo_items')).toContain('added');
      expect(await count(db, 'evo_items', 'added IS NULL')).toBe(1);
    });

    it(`fields past the column budget (${caps.maxColumns}) go to the JSON overflow column`, async () => {
      const { db } = await fresh();
      const wide = Object.fromEntries(Array.from({ length: caps.maxColumns + 10 }, (_, i) => [`f${i}`, i]));
      await loadBatch(db, resultsBatch('wide', [result(wide)]));
      const cols = await columns(db, 'wide_items');
      expect(cols.length).toBeLessThanOrEqual(caps.maxColumns);
      expect(cols).toContain('_overflow');
    }, 120_000);

    it('writes a group of many responses, each atomic, and writing them again changes nothing', async () => {
      const { db } = await fresh();
      const list = Array.from({ length: 40 }, (_, i) => product(i + 1));
      const first = await loadBatches(db, list);
      expect(first.failed).toBeUndefined();
      expect(first.results).toHaveLength(40);
      expect(await count(db, 'marketplace_products')).toBe(40);
      const models = await count(db, 'marketplace_product_models');
      expect(models).toBeGreaterThan(40);
      const again = await loadBatches(db, list);
      expect(again.failed).toBeUndefined();
      for (const r of again.results)
        for (const [t, c] of Object.entries(r.changedByTable)) if (t !== 'raw_responses') expect(c, t).toBe(0);
      expect(await count(db, 'marketplace_product_models')).toBe(models);
      // A failing response in the middle: the ones before it commit, it and the rest do not.
      const broken: LoadBatchOptions = {
        ...product(999),
        onTableWritten: () => {
          throw new Error('injected');
        },
      };
      const mixed = await loadBatches(db, [product(41), broken, product(42)]);
      expect(mixed.failed?.index).toBe(1);
      expect(await count(db, 'marketplace_products')).toBe(41);
    }, 120_000);

    it('the export reader yields every row once, and the watermark resumes after it', async () => {
      const { db } = await fresh();
      const reader = adapter.exportReader as typeof adapter.exportReader;
      await loadBatches(db, [product(1), product(2), product(3)]);
      const table = 'marketplace_products';
      expect(await reader.readWatermark(db, 'shop', table)).toBeNull();
      const read = async (after: bigint | null) => {
        const where =
          after === null
            ? [`pipeline = ${adapter.sql.ph(1)}`]
            : [`pipeline = ${adapter.sql.ph(1)}`, `load_id > ${adapter.sql.ph(2)}`];
        const params = after === null ? ['shop'] : ['shop', after];
        const out: Array<[string, bigint]> = [];
        for await (const batch of reader.rowBatches(
          db,
          { table, columns: ['item_id', 'load_id'].map(quoteIdent), where, params },
          params,
          2,
        )) {
          for (const r of batch) out.push([String(r[0]), BigInt(r[1] as bigint | string | number)]);
        }
        return out;
      };
      const firstRead = await read(null);
      expect(firstRead.map((r) => r[0]).sort()).toEqual(['1', '2', '3']);
      const max = firstRead.reduce((m, r) => (r[1] > m ? r[1] : m), 0n);
      await reader.advanceWatermark(db, 'shop', table, max, { run: 'run-1', file: 'f1.csv', rows: 3 });
      await loadBatches(db, [product(4), product(2, 100_000)]);
      const second = await read(await reader.readWatermark(db, 'shop', table));
      expect(second.map((r) => r[0]).sort()).toEqual(['2', '4']);
      // Never backwards.
      await reader.advanceWatermark(db, 'shop', table, 1n, { run: 'run-0', file: 'f0.csv', rows: 1 });
      expect(await reader.readWatermark(db, 'shop', table)).toBe(max);
      expect(await reader.readLastExportedFile(db, 'shop', table)).toEqual({ run: 'run-0', file: 'f0.csv', rows: 1 });
    }, 120_000);

    it('retention prunes superseded bodies and keeps every current row traceable', async () => {
      const { db } = await fresh();
      await loadBatch(db, product(1));
      await loadBatch(db, product(1)); // identical: lands a body that no row points at
      await loadBatch(db, product(2));
      const before = await count(db, 'raw_responses');
      const pruned = await pruneRawResponses(db, { pipeline: 'shop', olderThan: new Date(Date.now() + 60_000) });
      expect(pruned.old).toBe(before);
      expect(pruned.deleted).toBeGreaterThanOrEqual(1);
      expect(await count(db, 'raw_responses')).toBe(before - pruned.deleted);
      const orphans = await rows(
        db,
        'SELECT count(*) AS n FROM marketplace_products p WHERE NOT EXISTS (SELECT 1 FROM raw_responses r WHERE r.id = p.load_id)',
      );
      expect(Number(orphans[0]?.['n'])).toBe(0);
    });

    it(`writers: ${caps.oneWriterPerFile ? 'one process holds the file' : caps.concurrentWriters ? 'concurrent transactions write at once' : 'serialised across connections'}`, async () => {
      const { db, url } = await fresh();
      const insert = (tx: Tx, stream: string) =>
        tx.run(
          `INSERT INTO sync_watermarks (pipeline, stream, watermark, updated_at) VALUES (${tx.ph(1)}, ${tx.ph(2)}, ${tx.ph(3)}, ${tx.ph(4)})`,
          ['w', stream, '1', new Date().toISOString()],
        );
      // A second connection of this process, opened (and migrated) before the first one starts writing.
      const other = caps.oneWriterPerFile ? undefined : await openDatabase(url);
      if (other) open.push(other);
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const inside = new Promise<void>((r) => (entered = r));
      const first = withTransaction(db, async (tx) => {
        await insert(tx, 'first');
        entered();
        await held;
      });
      await inside;
      if (caps.oneWriterPerFile) {
        // Another process cannot open the file while this one writes it.
        const file = adapter.fileOf(adapter.parseUrl(url) as never)!;
        const child = spawnSync(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `import { DuckDBInstance } from '@duckdb/node-api'; try { await DuckDBInstance.create(${JSON.stringify(file)}); console.log('opened'); } catch (e) { console.log('refused: ' + e.message); }`,
          ],
          { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 },
        );
        expect(child.stdout).toMatch(/^refused: .*lock/i);
        release();
        await first;
      } else {
        let secondDone = false;
        const second = withTransaction(other!, (tx) => insert(tx, 'second')).then(() => (secondDone = true));
        // Long enough for a writer that is not blocked to commit, on a busy machine.
        await new Promise((r) => setTimeout(r, 1500));
        expect(secondDone).toBe(caps.concurrentWriters);
        release();
        await first;
        await second;
      }
      expect(await readSyncWatermark(db, 'w', 'first')).toBe('1');
    }, 120_000);

    it('capabilities match the database: bound parameters, identifier length, ADD COLUMN IF NOT EXISTS, COMMENT ON', async () => {
      const { db } = await fresh();
      const ph = adapter.sql.ph;
      const list = Array.from({ length: caps.maxParams - 1 }, (_, i) => ph(i + 2)).join(', ');
      const params: Param[] = Array.from({ length: caps.maxParams }, () => 1);
      const [hit] = await rows(
        db,
        `SELECT count(*) AS n FROM sync_watermarks WHERE ${ph(1)} IN (${list}) OR 1 = 1`,
        params,
      );
      expect(Number(hit?.['n'])).toBe(0);
      // The longest identifier claimed round-trips, and so do quotes and other scripts in a quoted identifier.
      const longest = 'c'.repeat(caps.maxIdentifierBytes);
      await withTransaction(db, (tx) =>
        tx.run(
          `CREATE TABLE ident_probe (${quoteIdent(longest)} INTEGER, ${quoteIdent('a"b')} INTEGER, ${quoteIdent('ключ 🙂')} INTEGER)`,
          [],
        ),
      );
      expect(await columns(db, 'ident_probe')).toEqual([longest, 'a"b', 'ключ 🙂']);
      const add = () =>
        withTransaction(db, (tx) => tx.run(`ALTER TABLE ident_probe ADD COLUMN IF NOT EXISTS extra INTEGER`, []));
      if (caps.addColumnIfNotExists) {
        await add();
        await add();
        expect(await columns(db, 'ident_probe')).toEqual([longest, 'a"b', 'ключ 🙂', 'extra']);
      } else {
        await expect(add()).rejects.toThrow();
      }
      // Comments: in the catalog with COMMENT ON, or (SQLite) refused there and kept in scrape_etl_comments.
      const comment = () => withTransaction(db, (tx) => tx.run(`COMMENT ON COLUMN ident_probe.extra2 IS 'x'`, []));
      await withTransaction(db, (tx) => tx.run(`ALTER TABLE ident_probe ADD COLUMN extra2 INTEGER`, []));
      if (caps.commentOn) await comment();
      else await expect(comment()).rejects.toThrow();
    }, 120_000);
  });
}
