// URL lists stored by reference (see the url_lists table): written once by whoever starts a run, read by the
// activities a slice at a time. A list is identified by the SHA-256 of its JSON text, so storing it again (a
// second run of the same pipeline file, a schedule re-applied) writes nothing new.
import { hexDigest } from '../model/hash.js';
import type { Database } from '../../destinations/contract.js';
import { withTransaction } from './sql.js';

/** URLs per stored row: small enough for any statement, large enough that 100,000 URLs are 100 rows. */
export const URL_LIST_CHUNK = 1000;

export interface StoredUrlList {
  listId: string;
  count: number;
}

export function urlListId(urls: readonly string[]): string {
  return hexDigest('sha256', JSON.stringify(urls));
}

export async function storeUrlList(db: Database, urls: readonly string[]): Promise<StoredUrlList> {
  const listId = urlListId(urls);
  const now = new Date().toISOString();
  await withTransaction(db, async (tx) => {
    for (let i = 0; i * URL_LIST_CHUNK < urls.length; i++) {
      await tx.run(
        `INSERT INTO url_lists (list_id, chunk_index, urls, created_at) VALUES (${tx.ph(1)}, ${tx.ph(2)}, ${tx.ph(3)}, ${tx.ph(4)})
         ON CONFLICT (list_id, chunk_index) DO NOTHING`,
        [listId, i, JSON.stringify(urls.slice(i * URL_LIST_CHUNK, (i + 1) * URL_LIST_CHUNK)), now],
      );
    }
  });
  return { listId, count: urls.length };
}

/** URLs [offset, offset + count) of a stored list; a list or slice that is not there is an error naming it. */
export async function readUrlSlice(db: Database, listId: string, offset: number, count: number): Promise<string[]> {
  if (count <= 0) return [];
  const first = Math.floor(offset / URL_LIST_CHUNK);
  const last = Math.floor((offset + count - 1) / URL_LIST_CHUNK);
  const rows = await withTransaction(db, (tx) =>
    tx.all(
      `SELECT chunk_index, urls FROM url_lists WHERE list_id = ${tx.ph(1)} AND chunk_index >= ${tx.ph(2)} AND chunk_index <= ${tx.ph(3)} ORDER BY chunk_index`,
      [listId, first, last],
    ),
  );
  if (rows.length !== last - first + 1) {
    throw new Error(
      `URL list ${listId.slice(0, 12)}… has ${rows.length} of the ${last - first + 1} stored chunks needed for URLs ${offset}..${offset + count - 1} in ${db.url}; start the run again (the starter stores the list)`,
    );
  }
  const urls = rows.flatMap((r) => JSON.parse(String(r['urls'])) as string[]);
  const start = offset - first * URL_LIST_CHUNK;
  return urls.slice(start, start + count);
}
