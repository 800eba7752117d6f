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
// large index does not grow memory with rows.
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
 * `previousKeys`: the local file of the index the previous run left, or null when the target was sent none of this
 * table yet. `unknownBefore`: rows were sent before but no index says which (a lake written before the index
 * existed): kinds are NULL for this run, and the next index is built from `currentKeys` (every key of the table now).
 */
export async function openChangeMarker(o: {
  scratch: string;
  key: string[];
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
  const inserted: string[] = [];
  let n = 0;
  // Keys as text: the same whether a key column is in the file or in the path (a partition column).
  const keyExpr = (file: RunFile, c: string) => {
    const p = file.partition.find((x) => x.column === c);
    if (p !== undefined) return p.text === null ? 'null::varchar' : `${sqlLiteral(p.text)}::varchar`;
    return `cast(n.${quoteIdent(c)} as varchar)`;
  };
  return {
    async mark(file) {
      const out = `${file.path}.kinds`;
      const src = `read_parquet(${sqlLiteral(file.path)})`;
      let select: string;
      if (o.unknownBefore !== undefined) select = `select n.*, null::varchar as ${CHANGE_KIND_COLUMN} from ${src} n`;
      else if (!keyed || o.previousKeys === null)
        select = `select n.*, 'insert' as ${CHANGE_KIND_COLUMN} from ${src} n`;
      else {
        const on = o.key.map((c) => `p.${quoteIdent(c)} = ${keyExpr(file, c)}`).join(' and ');
        select =
          `select n.*, case when p.${quoteIdent(o.key[0]!)} is null then 'insert' else 'update' end as ${CHANGE_KIND_COLUMN} ` +
          `from ${src} n left join read_parquet(${sqlLiteral(o.previousKeys)}) p on ${on}`;
      }
      const copied = Number((await con.runAndReadAll(parquetCopySql(select, out))).getRows()[0]?.[0] ?? 0);
      if (o.unknownBefore !== undefined) {
        await rename(out, file.path);
        return { insert: 0, update: 0 };
      }
      // Without an index to join, every row is an insert: nothing to count, and the keys come from the file as is.
      const joined = keyed && o.previousKeys !== null;
      let counts = { insert: copied, update: 0 };
      if (joined) {
        const [insert, update] = (
          await con.runAndReadAll(
            `select count(*) filter (where ${CHANGE_KIND_COLUMN} = 'insert'), count(*) filter (where ${CHANGE_KIND_COLUMN} = 'update') from read_parquet(${sqlLiteral(out)})`,
          )
        ).getRows()[0]!;
        counts = { insert: Number(insert ?? 0), update: Number(update ?? 0) };
      }
      if (keyed) {
        const keys = join(o.scratch, `inserted-${n++}.parquet`);
        const from = joined ? `read_parquet(${sqlLiteral(out)}) n where ${CHANGE_KIND_COLUMN} = 'insert'` : `${src} n`;
        await con.run(
          parquetCopySql(
            `select ${o.key.map((c) => `${keyExpr(file, c)} as ${quoteIdent(c)}`).join(', ')} from ${from}`,
            keys,
          ),
        );
        inserted.push(keys);
      }
      await rename(out, file.path);
      return counts;
    },
    async finish() {
      if (!keyed) return null;
      const path = join(o.scratch, 'keys.parquet');
      const cols = o.key.map(quoteIdent).join(', ');
      const sources =
        o.unknownBefore !== undefined
          ? [o.unknownBefore.currentKeys]
          : [...(o.previousKeys !== null ? [o.previousKeys] : []), ...inserted];
      const select =
        sources.length === 0
          ? `select ${o.key.map((c) => `null::varchar as ${quoteIdent(c)}`).join(', ')} where false`
          : sources.map((s) => `select ${castAll(o.key)} from read_parquet(${sqlLiteral(s)})`).join(' union all ');
      await con.run(parquetCopySql(`select ${cols} from (${select})`, path));
      for (const f of inserted) await rm(f, { force: true });
      return path;
    },
    close() {
      con.closeSync();
      instance.closeSync();
    },
  };
}

function castAll(key: string[]): string {
  return key.map((c) => `cast(${quoteIdent(c)} as varchar) as ${quoteIdent(c)}`).join(', ');
}
