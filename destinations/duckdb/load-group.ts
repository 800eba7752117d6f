// The DuckDB statements of the group writer (load-group.ts). DuckDB charges ~2 ms per statement and ~10 ms per
// COMMIT whatever their size, so a group is one transaction with about one statement per table. Sets of rows or keys
// are bound as one typed list per column and zipped back into rows by `unnest` (db/duckdb/tx.ts): a statement's
// shape depends on its columns only, so each is prepared once per connection, and no parameter limit applies.
// Measured against multi-row VALUES with bound scalars (the per-response path) and an Appender into a TEMP staging
// table, 1,300 rows of 18 columns: VALUES ~370 ms, unnest of lists ~65 ms, Appender + INSERT … SELECT ~32 ms
// (medians on the shared 2-core machine); the Appender needs a staging table per column list, whose life would have
// to follow the transaction's, so lists were chosen.
//
// Nothing else writes the file while a transaction runs (one process per file, db/duckdb/database.ts), so the writer
// reads the stored row hash of every key the group writes (hashEveryKey) and decides and counts every change itself;
// the writes are then plain DELETE (vanished children, and before the INSERT the rows it replaces) and plain INSERT: no ON CONFLICT, which
// DuckDB charges dearly for and which cannot touch the same key twice in one statement (the planner writes each key
// once anyway).
import type { Scalar } from '../../db/model/flatten/values.js';
import { columnType, PARENT_COLUMNS, writeGroup, type GroupDialect } from '../../db/store/load-group.js';
import { DUCKDB_COLUMN_TYPES } from './column-types.js';
import { keyString, type LoadBatchResult, type PreparedBatch } from '../../db/store/load-rows.js';
import { insertRawResponsesDuckdb } from './raw-responses.js';
import { quoteIdent, type Tx } from '../../db/store/sql.js';
import { TABLE_META, type DataTableName } from '../../db/model/tables.js';
import { asDuckTx, duckListType, duckUnnest, loadListTypes, type DuckParam, type DuckTx } from './tx.js';

/**
 * `(SELECT unnest($first::T0[]) AS k0, …) AS k` over the columns `columns` of `table`, with its parameters for
 * `keys` (values in `columns` order), and the join condition of `alias`'s columns with it.
 */
function keySet(
  tx: DuckTx,
  table: DataTableName,
  columns: readonly string[],
  keys: ReadonlyArray<readonly Scalar[]>,
  alias: string,
  first = 1,
) {
  const types = columns.map((c) => columnType(table, c, DUCKDB_COLUMN_TYPES));
  const sql = `(SELECT ${types.map((t, i) => `${duckUnnest(tx, first + i, t)} AS k${i}`).join(', ')}) AS k`;
  const on = columns.map((c, i) => `${alias}.${quoteIdent(c)} = k.k${i}`).join(' AND ');
  const params: DuckParam[] = types.map((t, i) => ({ list: keys.map((k) => k[i] ?? null), type: duckListType(t) }));
  return { sql, on, params };
}

function remove(tx: DuckTx, table: DataTableName, keys: ReadonlyArray<readonly Scalar[]>) {
  const set = keySet(tx, table, TABLE_META[table].key, keys, quoteIdent(table));
  return tx.runWith(`DELETE FROM ${quoteIdent(table)} USING ${set.sql} WHERE ${set.on}`, set.params);
}

export function duckdbGroupDialect(tx: DuckTx): GroupDialect {
  return {
    pipelined: false,
    hashEveryKey: true,
    selectByParents: (table, columns, pipeline, keys) => {
      const set = keySet(tx, table, PARENT_COLUMNS, keys, 't', 2);
      return tx.allWith(
        `SELECT ${[...PARENT_COLUMNS, ...columns].map((c) => `t.${quoteIdent(c)}`).join(', ')} FROM ${quoteIdent(table)} AS t
          JOIN ${set.sql} ON ${set.on} WHERE t.pipeline = ${tx.ph(1)}`,
        [pipeline, ...set.params],
      );
    },
    storedHashes: async (table, keys) => {
      const key = TABLE_META[table].key;
      const set = keySet(tx, table, key, keys, 't');
      const out = new Map<string, string>();
      const rows = await tx.allWith(
        `SELECT ${key.map((c) => `t.${quoteIdent(c)}`).join(', ')}, t.row_hash FROM ${quoteIdent(table)} AS t JOIN ${set.sql} ON ${set.on}`,
        set.params,
      );
      for (const r of rows) out.set(keyString(key.map((k) => r[k])), String(r['row_hash']));
      return out;
    },
    landRaw: (list) => insertRawResponsesDuckdb(tx, list),
    remove: (table, keys) => remove(tx, table, keys),
    upsert: async (table, columns, types, entries, counted, replace) => {
      // Plain INSERT: every key written here was absent or is deleted first (hashEveryKey: a stored row the group
      // changes is in `replace`), so nothing conflicts. One process writes the file: no lock order to keep.
      if (replace.length > 0) await remove(tx, table, replace);
      await tx.runWith(
        `INSERT INTO ${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}) SELECT ${types.map((t, i) => duckUnnest(tx, i + 1, t)).join(', ')}`,
        types.map((t, c) => ({ list: entries.map((e) => e.values[c] ?? null), type: duckListType(t) })),
      );
      // Keyed rows were counted by the planner; rows without a key (price history) are all new.
      const changed = new Map<number, number>();
      for (const e of entries)
        if (e.key === undefined || !counted.has(e.key)) changed.set(e.from, (changed.get(e.from) ?? 0) + 1);
      return changed;
    },
  };
}

/** Writes `preps` (responses of one pipeline, without content tables) as one, inside `tx`; results in list order. */
export async function writeGroupDuckdb(tx: Tx, preps: readonly PreparedBatch[]): Promise<LoadBatchResult[]> {
  await loadListTypes();
  const duck = asDuckTx(tx);
  return writeGroup(duck, duckdbGroupDialect(duck), preps);
}
