// The Postgres statements of the group writer (load-group.ts): sets of rows or keys travel as one array literal per
// column, zipped back into rows by `unnest` (postgres-arrays.ts), so each statement's shape depends on its columns
// only; rows are upserted with ON CONFLICT … WHERE row_hash <> excluded.row_hash and counted from RETURNING.
// Every statement that locks rows takes them in the order the writer gave them (sorted by key): WITH ORDINALITY
// … ORDER BY, rather than whatever order a join or a scan would produce.
import type { Scalar } from '../../db/model/flatten/values.js';
import {
  columnType,
  PARENT_COLUMNS,
  writeGroup,
  type GroupDialect,
  type UpsertEntry,
} from '../../db/store/load-group.js';
import { POSTGRES_COLUMN_TYPES } from './column-types.js';
import { keyString, type LoadBatchResult, type PreparedBatch } from '../../db/store/load-rows.js';
import { unnestRows, unnestRowsInOrder } from './arrays.js';
import { insertRawResponsesPostgres } from './raw-responses.js';
import { quoteIdent, type Tx } from '../../db/store/sql.js';
import { TABLE_META, type DataTableName } from '../../db/model/tables.js';

/**
 * Writes `entries` (values in `columns` order) with one INSERT … SELECT FROM unnest … ON CONFLICT, inserting and
 * locking the rows in the order given, changing a row only when its hash differs (as db/store/upsert.ts does) or its
 * key is in `replace`; returns how many rows each response changed, leaving out the keys in `counted` (the caller
 * counts those).
 */
async function upsertGroup(
  tx: Tx,
  ...[table, columns, types, entries, counted, replace]: Parameters<GroupDialect['upsert']>
): Promise<Map<number, number>> {
  const meta = TABLE_META[table];
  const select = unnestRowsInOrder(
    tx,
    types,
    entries.map((e) => e.values),
  );
  const name = quoteIdent(table);
  let sql = `INSERT INTO ${name} (${columns.map(quoteIdent).join(', ')}) ${select.sql}`;
  const changed = new Map<number, number>();
  const add = (from: number) => changed.set(from, (changed.get(from) ?? 0) + 1);
  if (meta.key.length === 0) {
    await tx.run(sql, select.params);
    for (const e of entries) add(e.from);
    return changed;
  }
  const updates = columns
    .filter((c) => !meta.key.includes(c))
    .map((c) => `${quoteIdent(c)} = excluded.${quoteIdent(c)}`);
  const keyList = meta.key.map((k) => `${name}.${quoteIdent(k)}`).join(', ');
  sql += ` ON CONFLICT (${meta.key.map(quoteIdent).join(', ')}) DO UPDATE SET ${updates.join(', ')} WHERE ${name}.row_hash <> excluded.row_hash`;
  const params = [...select.params];
  if (replace.length > 0) {
    // A replaced row is overwritten in this same pass, where its key falls in the order, whatever its hash: the
    // table then holds it with this write's lineage, as deleting and inserting it would, without a DELETE that
    // locked it ahead of the rest.
    const set = unnestRows(
      tx,
      meta.key.map((k) => columnType(table, k, POSTGRES_COLUMN_TYPES)),
      replace,
      params.length + 1,
    );
    sql += ` OR (${keyList}) IN (${set.sql})`;
    params.push(...set.params);
  }
  sql += ` RETURNING ${meta.key.map(quoteIdent).join(', ')}`;
  const fromByKey = new Map<string, number>();
  const keyAt = meta.key.map((k) => columns.indexOf(k));
  for (const e of entries) fromByKey.set(e.key ?? keyString(keyAt.map((i) => e.values[i])), e.from);
  for (const r of await tx.all(sql, params)) {
    const key = keyString(meta.key.map((k) => r[k]));
    if (counted.has(key)) continue;
    const from = fromByKey.get(key);
    if (from === undefined) throw new Error(`${table}: the upsert returned a key it was not given (${key})`);
    add(from);
  }
  return changed;
}

export function postgresGroupDialect(tx: Tx): GroupDialect {
  const keySet = (
    table: DataTableName,
    columns: readonly string[],
    keys: ReadonlyArray<readonly Scalar[]>,
    first = 1,
  ) =>
    unnestRows(
      tx,
      columns.map((c) => columnType(table, c, POSTGRES_COLUMN_TYPES)),
      keys,
      first,
    );
  return {
    pipelined: true,
    hashEveryKey: false,
    selectByParents: (table, columns, pipeline, keys) => {
      const set = keySet(table, PARENT_COLUMNS, keys, 2);
      return tx.all(
        `SELECT ${[...PARENT_COLUMNS, ...columns].map(quoteIdent).join(', ')} FROM ${quoteIdent(table)}
          WHERE pipeline = ${tx.ph(1)} AND (${PARENT_COLUMNS.map(quoteIdent).join(', ')}) IN (${set.sql})`,
        [pipeline, ...set.params],
      );
    },
    storedHashes: async (table, keys) => {
      const key = TABLE_META[table].key;
      const set = keySet(table, key, keys);
      const keyList = key.map(quoteIdent).join(', ');
      const out = new Map<string, string>();
      for (const r of await tx.all(
        `SELECT ${keyList}, row_hash FROM ${quoteIdent(table)} WHERE (${keyList}) IN (${set.sql})`,
        set.params,
      )) {
        out.set(keyString(key.map((k) => r[k])), String(r['row_hash']));
      }
      return out;
    },
    landRaw: (list) => insertRawResponsesPostgres(tx, list),
    remove: (table, keys) => {
      // Locked in the order given (sorted by key) before they are deleted: a DELETE alone locks its rows in the order
      // its join finds them. (These are children of the group's own products, whose advisory locks this transaction
      // holds, so no other load should ever wait for them; the order costs nothing and holds if that changes.)
      const key = TABLE_META[table].key;
      const name = quoteIdent(table);
      const set = unnestRowsInOrder(
        tx,
        key.map((c) => columnType(table, c, POSTGRES_COLUMN_TYPES)),
        keys,
        1,
        'k',
      );
      const cols = key.map(quoteIdent);
      return tx.run(
        `WITH locked AS (SELECT ${cols.map((c) => `r.${c}`).join(', ')} FROM ${set.from} JOIN ${name} AS r ON ${cols.map((c, i) => `r.${c} = k.${set.columns[i]}`).join(' AND ')}
            ORDER BY k.ord FOR UPDATE OF r)
         DELETE FROM ${name} USING locked WHERE ${cols.map((c) => `${name}.${c} = locked.${c}`).join(' AND ')}`,
        set.params,
      );
    },
    upsert: (table, columns, types, entries, counted, replace) =>
      upsertGroup(tx, table, columns, types, entries, counted, replace),
  };
}

/** Writes `preps` (responses of one pipeline, without content tables) as one; results in list order. */
export function writeGroupPostgres(tx: Tx, preps: readonly PreparedBatch[]): Promise<LoadBatchResult[]> {
  return writeGroup(tx, postgresGroupDialect(tx), preps);
}
