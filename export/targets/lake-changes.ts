// The change kind of a lake run's rows (lake.ts): every Parquet file a run writes for a merge-keyed table carries
// `_change_kind`, 'insert' for a natural key this target has never been sent and 'update' for one it has. The
// destination keeps only a key's current row, so what the target was sent is kept beside the lake: the key index,
// one Parquet file of every natural key exported to the target (`<pipeline>/_keys/<table>/<run>.keys`, a Parquet file, named by
// the run's manifest). A run reads the index its predecessor's manifest names, marks its rows against it and writes
// the next index (the old keys and its inserts); a retried attempt reads the same predecessor, so it marks the same
// kinds. Append-only tables (no natural key) have only inserts and no index.
//
// The files are rewritten by DuckDB (read_parquet, a left join on the key, COPY with the export's own Parquet
// settings), which keeps their schema as written; its buffer pool is bounded and spills to the scratch folder, so a
// large index does not grow memory with rows. The index holds each key column with the type the lake's files give
// it (BIGINT ids, VARCHAR row keys): text keys made every pass cast each key to text and back, the largest cost
// of the pass after the rewrite itself (docs/measurements.md). An index an earlier version wrote in text is cast to
// those types as it is read, and the next index is written typed.
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { TABLE_META, type TableMeta } from '../../db/model/tables.js';
import { quoteIdent } from '../database.js';
import { parquetCopySql, sqlLiteral } from '../formats/parquet-sql.js';

export const CHANGE_KIND_COLUMN = '_change_kind';
export type ChangeKind = 'insert' | 'update';

/** DuckDB's buffer pool while it marks rows: the join's hash table spills beyond it. */
const DUCK_MEMORY = '192MB';

/**
 * The natural key of a table's rows without `pipeline` (the lake's folder already says it): the model's primary key,
 * (pipeline, row_key) for inferred content tables, none for append-only tables.
 */
export function mergeKeyOf(table: string, columns: readonly string[]): string[] {
  const meta = (TABLE_META as Readonly<Record<string, TableMeta | undefined>>)[table];
  const key = meta !== undefined ? [...meta.key] : columns.includes('row_key') ? ['pipeline', 'row_key'] : [];
  return key.filter((c) => c !== 'pipeline');
}

/** A file of the run's rows, and the values of the partition columns its path holds (as the path writes them). */
export interface RunFile {
  path: string;
  partition: Array<{ column: string; text: string | null }>;
}

export interface ChangeMarker {
  /** Adds `_change_kind` to the file in place; counts its kinds. */
  mark(file: RunFile): Promise<{ insert: number; update: number }>;
  /** The next key index (the previous one and this run's inserts) as a local file; null for a table without a key. */
  finish(): Promise<string | null>;
  close(): void;
}

/**
 * `keyTypes`: the DuckDB type of each key column as the lake's files hold it (export/formats/parquet-sql.ts
 * duckdbTypeOf); a key column that is a partition column is not in the file, and its value from the path is cast to
 * it. `previousKeys`: the local file of the index the previous run left, or null when the target was sent none of
 * this table yet. `unknownBefore`: rows were sent before but no index says which (a lake written before the index
 * existed): kinds are NULL for this run, and the next index is built from `currentKeys` (every key of the table now).
 */
export async function openChangeMarker(o: {
  scratch: string;
  key: string[];
  keyTypes: Readonly<Record<string, string>>;
  previousKeys: string | null;
  unknownBefore?: { currentKeys: string };
}): Promise<ChangeMarker> {
  const duck = await import('@duckdb/node-api');
  const instance: DuckDBInstance = await duck.DuckDBInstance.create(':memory:', {
    memory_limit: DUCK_MEMORY,
    temp_directory: join(o.scratch, 'duck'),
    threads: '1',
  });
  const con: DuckDBConnection = await instance.connect();
  const keyed = o.key.length > 0;
  const typeOf = (c: string) => {
    const t = o.keyTypes[c];
    if (t === undefined) throw new Error(`export: no type for the key column ${c}`);
    return t;
  };
  /** Files of this run's inserted keys, each typed and in key order; with the previous index, the next index. */
  const inserted: string[] = [];
  const copy = async (select: string, path: string) =>
    Number((await con.runAndReadAll(parquetCopySql(select, path))).getRows()[0]?.[0] ?? 0);
  // A key column's value in a row of the file: the column, or the path's value when it is a partition column.
  const keyValue = (file: RunFile, c: string) => {
    const p = file.partition.find((x) => x.column === c);
    if (p === undefined) return `n.${quoteIdent(c)}`;
    return p.text === null ? `null::${typeOf(c)}` : `cast(${sqlLiteral(p.text)} as ${typeOf(c)})`;
  };
  const keysOf = (file: RunFile) => o.key.map((c) => `${keyValue(file, c)} as ${quoteIdent(c)}`).join(', ');
  const insertedKeys = async (file: RunFile, from: string): Promise<number> => {
    const path = join(o.scratch, `inserted-${inserted.length}.parquet`);
    const rows = await copy(`select ${keysOf(file)} from ${from}`, path);
    inserted.push(path);
    return rows;
  };
  // The previous index with each column of the run's type; try_cast, as an index an earlier version wrote holds the
  // keys as text, and a key it cannot read as one of ours is a key no row of ours has.
  const previous = (path: string) =>
    `(select ${o.key.map((c) => `try_cast(${quoteIdent(c)} as ${typeOf(c)}) as ${quoteIdent(c)}`).join(', ')} from read_parquet(${sqlLiteral(path)}))`;
  return {
    async mark(file) {
      const out = `${file.path}.kinds`;
      const src = `read_parquet(${sqlLiteral(file.path)}) n`;
      if (o.unknownBefore !== undefined) {
        await copy(`select n.*, null::varchar as ${CHANGE_KIND_COLUMN} from ${src}`, out);
        await rename(out, file.path);
        return { insert: 0, update: 0 };
      }
      if (!keyed || o.previousKeys === null) {
        // Nothing to join: every row is an insert, and every key of the file is new to the index.
        const copied = await copy(`select n.*, 'insert' as ${CHANGE_KIND_COLUMN} from ${src}`, out);
        if (keyed) await insertedKeys(file, src);
        await rename(out, file.path);
        return { insert: copied, update: 0 };
      }
      const on = o.key.map((c) => `p.${quoteIdent(c)} = ${keyValue(file, c)}`).join(' and ');
      const copied = await copy(
        `select n.*, case when p.sent then 'update' else 'insert' end as ${CHANGE_KIND_COLUMN} ` +
          `from ${src} left join (select *, true as sent from ${previous(o.previousKeys)}) p on ${on}`,
        out,
      );
      // The inserts' keys, read back from the marked file (its key columns and kinds only), are also their count.
      const insert = await insertedKeys(
        file,
        `read_parquet(${sqlLiteral(out)}) n where ${CHANGE_KIND_COLUMN} = 'insert'`,
      );
      await rename(out, file.path);
      return { insert, update: copied - insert };
    },
    async finish() {
      if (!keyed) return null;
      const path = join(o.scratch, 'keys.parquet');
      const typed = (from: string) =>
        `select ${o.key.map((c) => `cast(${quoteIdent(c)} as ${typeOf(c)}) as ${quoteIdent(c)}`).join(', ')} from ${from}`;
      const sources =
        o.unknownBefore !== undefined
          ? [typed(`read_parquet(${sqlLiteral(o.unknownBefore.currentKeys)})`)]
          : [
              ...(o.previousKeys !== null ? [typed(previous(o.previousKeys))] : []),
              ...inserted.map((f) => typed(`read_parquet(${sqlLiteral(f)})`)),
            ];
      if (o.unknownBefore === undefined && o.previousKeys === null && inserted.length === 1) {
        // The first index of a one-file run is that file's keys, already written as an index is.
        await rename(inserted[0]!, path);
      } else {
        const select =
          sources.length === 0
            ? `select ${o.key.map((c) => `null::${typeOf(c)} as ${quoteIdent(c)}`).join(', ')} where false`
            : sources.join(' union all ');
        await copy(select, path);
      }
      for (const f of inserted) await rm(f, { force: true });
      return path;
    },
    close() {
      con.closeSync();
      instance.closeSync();
    },
  };
}
