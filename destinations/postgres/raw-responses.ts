// The Postgres group writer's raw landing (moved from db/store/raw-responses.ts).
import { bodySha256Of, rawRowsInOrder, RAW_COLUMNS, type RawResponse } from '../../db/store/raw-responses.js';
import type { Tx } from '../../db/store/sql.js';

/**
 * Postgres: lands several responses in three statements, whatever their number, with the same rows as
 * insertRawResponse called for each in order: ids allotted in order from the table's sequence, and a body equal to
 * an earlier one (stored before, or earlier in the list) kept once. Resolves to the ids (load ids) in list order
 * as soon as they are allotted, and `landed`, the insert itself: sent, not awaited, so that the caller prepares its
 * rows while the server stores the bodies. The caller must await `landed` before its transaction ends.
 */
export async function insertRawResponsesPostgres(
  tx: Tx,
  list: readonly RawResponse[],
): Promise<{ ids: number[]; landed: Promise<number> }> {
  const shas = list.map(bodySha256Of);
  const found = await tx.all(
    `SELECT body_sha256, min(id) AS id FROM raw_responses WHERE body_sha256 = ANY(${tx.ph(1)}::text[]) AND body_ref IS NULL GROUP BY body_sha256`,
    [`{${[...new Set(shas)].join(',')}}`],
  );
  const allotted = await tx.all(
    `SELECT nextval(pg_get_serial_sequence('raw_responses', 'id')) AS id FROM generate_series(1, ${tx.ph(1)}::int)`,
    [list.length],
  );
  const { ids, rows } = rawRowsInOrder(list, shas, found, allotted);
  // Multi-row VALUES rather than arrays: a body inside an array literal would have every quote escaped and
  // unescaped again (a JSON body is full of them), which made this insert cost as much as all the tables' upserts.
  const columns = ['id', ...RAW_COLUMNS];
  const tuples = rows.map((_, r) => `(${columns.map((_c, c) => tx.ph(r * columns.length + c + 1)).join(', ')})`);
  const landed = tx.run(`INSERT INTO raw_responses (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, rows.flat());
  landed.catch(() => {}); // handled where the caller awaits it; this only keeps Node from calling it unhandled meanwhile
  return { ids, landed };
}
