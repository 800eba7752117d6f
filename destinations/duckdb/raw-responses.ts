// The DuckDB group writer's raw landing (moved from db/store/raw-responses.ts).
import { bodySha256Of, rawRowsInOrder, RAW_COLUMNS, type RawResponse } from '../../db/store/raw-responses.js';
import { pgColumnType } from '../postgres/arrays.js';
import { sequenceName } from './ddl.js';
import { duckListType, duckUnnest, type DuckTx } from './tx.js';

/**
 * DuckDB: lands several responses in three statements with the same rows as insertRawResponse called for each in
 * order (ids drawn in order from the table's sequence, a body equal to an earlier one kept once), the rows bound as
 * one typed list per column (tx.ts). `landed` is settled: DuckDB statements are awaited one by one.
 */
export async function insertRawResponsesDuckdb(
  tx: DuckTx,
  list: readonly RawResponse[],
): Promise<{ ids: number[]; landed: Promise<number> }> {
  const shas = list.map(bodySha256Of);
  // One statement (each costs DuckDB a fixed price whatever its size): the stored bodies equal to these (rows with their
  // sha), and the ids drawn from the sequence (rows without).
  const both = await tx.allWith(
    `SELECT body_sha256, min(id) AS id FROM raw_responses WHERE body_sha256 IN (SELECT unnest(${tx.ph(1)}::VARCHAR[])) AND body_ref IS NULL GROUP BY body_sha256
      UNION ALL SELECT NULL, nextval('${sequenceName('raw_responses')}') FROM range(${tx.ph(2)})`,
    [{ list: [...new Set(shas)], type: 'VARCHAR' }, list.length],
  );
  const found = both.filter((r) => r['body_sha256'] !== null);
  const allotted = both.filter((r) => r['body_sha256'] === null);
  const { ids, rows } = rawRowsInOrder(list, shas, found, allotted);
  const columns = ['id', ...RAW_COLUMNS];
  const landed = await tx.runWith(
    `INSERT INTO raw_responses (${columns.join(', ')}) SELECT ${columns.map((c, i) => duckUnnest(tx, i + 1, pgColumnType('raw_responses', c)!)).join(', ')}`,
    columns.map((c, i) => ({ list: rows.map((r) => r[i]!), type: duckListType(pgColumnType('raw_responses', c)!) })),
  );
  return { ids, landed: Promise.resolve(landed) };
}
