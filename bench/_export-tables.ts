// Tables for the export benchmarks (bench/csv-export.ts, bench/export-parquet.ts): generated marketplace products
// loaded into a new SQLite file through db/store/load.ts (the project's own tables and types), then one table's rows
// repeated under other item ids to reach the row count a benchmark needs without loading millions of products.
import BetterSqlite3 from 'better-sqlite3';
import { parseJson, stringifyJson } from '../lib/json.js';
import { marketplaceResponseSchema } from '../client/schemas.js';
import { openDatabase } from '../destinations/open.js';
import { loadBatch } from '../db/store/load.js';
import { generateProduct } from '../simulator/generate/marketplace.js';
import { SEED, productUrl } from './_marketplace-files.js';

/** Loads `products` generated products into a new project database through db/store/load.ts. */
export async function loadProducts(file: string, products: number): Promise<void> {
  const db = await openDatabase(`sqlite:${file}`);
  try {
    for (let i = 0; i < products; i++) {
      const input = productUrl(i);
      const raw = stringifyJson(generateProduct(SEED, input));
      const data = marketplaceResponseSchema.parse(parseJson(raw));
      await loadBatch(db, {
        pipeline: 'bench',
        kind: 'marketplace',
        endpoint: 'POST /api/marketplace/sync',
        requestKey: input.url,
        raw,
        data,
      });
    }
  } finally {
    await db.close();
  }
}

/** Repeats the rows of `table` under other item ids (the natural key) until it holds about `target` rows. */
export function repeatRows(file: string, table: string, target: number): number {
  const db = new BetterSqlite3(file);
  try {
    // Throwaway data: in WAL mode one INSERT … SELECT transaction of millions of rows grew a WAL as large as the
    // table (2 GB for 10M rows) before writing it again into the file; a rollback journal keeps only the few pages
    // overwritten, and nothing is synced (10M rows: 537 s -> 441 s; the rest is B-tree inserts). The mode stays
    // on the file; readers do not care.
    db.pragma('journal_mode = DELETE');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
    const cols = (
      db.prepare('select name from pragma_table_info(?) order by cid').all(table) as Array<{ name: string }>
    ).map((c) => `"${c.name}"`);
    const have = db.prepare(`select count(*) from "${table}"`).pluck().get() as number;
    const copies = Math.max(0, Math.round(target / have) - 1);
    const select = cols.map((c) => (c === '"item_id"' ? `item_id + ? * 1000000000` : c)).join(', ');
    const insert = db.prepare(
      `insert into "${table}" (${cols.join(', ')}) select ${select} from "${table}" where item_id < 1000000000`,
    );
    db.transaction(() => {
      for (let k = 1; k <= copies; k++) insert.run(k);
    })();
    return db.prepare(`select count(*) from "${table}"`).pluck().get() as number;
  } finally {
    db.close();
  }
}
