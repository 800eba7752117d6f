// The results of one scraping run a pipeline has stored already. A retried load of the run's results from
// /api/results (the detail did not carry them all) leaves these: the list's pages are not fixed for the run (new
// results push older ones down), so they cannot be landed once by their request as the detail's slices are
// (land-once.ts), and a page landed again would count its results as seen twice (seenRowsOfRun).
import type { Database } from '../../destinations/contract.js';
import type { ResultTableName } from '../model/tables.js';
import { withReadTransaction } from './sql.js';

/** The ids (as decimal text: ids are 64-bit) of `pipeline`'s rows in `table` from scraping run `scrapingRunId`. */
export async function storedResultIds(
  db: Database,
  table: ResultTableName,
  pipeline: string,
  scrapingRunId: string,
): Promise<Set<string>> {
  const rows = await withReadTransaction(db, (tx) =>
    tx.all(
      `SELECT CAST(id AS TEXT) AS id FROM ${table} WHERE pipeline = ${tx.ph(1)} AND scraping_run_id = ${tx.ph(2)}`,
      [pipeline, Number.isSafeInteger(Number(scrapingRunId)) ? Number(scrapingRunId) : BigInt(scrapingRunId)],
    ),
  );
  return new Set(rows.map((r) => String(r['id'])));
}
