// Result records (results list, scraping-run detail) -> one of the result tables, with `content` as it came
// (text as is, JSON otherwise). Its structure depends on the scraper: a string in the service's documents, objects
// in the simulator; content.ts flattens it into the pipeline's inferred tables. See db/README.md.
import type { ResultRecord } from '../../../client/schemas.js';
import type { ResultTableName } from '../tables.js';
import { decodeContent } from './content.js';
import { asJson, extraJson, isRecord, push, type RowsByTable } from './values.js';

const RESULT_TYPED = new Set([
  'id',
  'scraper_id',
  'scraping_run_id',
  'scraper_name',
  'scraped_url',
  'status',
  'content',
  'created_at',
  'updated_at',
]);

export type ContentType = 'null' | 'string' | 'json-string' | 'object' | 'array' | 'number' | 'boolean';

/** How `content` is kept in the result table: its text as received, and what it held (see content.ts decodeContent). */
function contentColumns(content: unknown): { type: ContentType; text: string | null } {
  if (content === null || content === undefined) return { type: 'null', text: null };
  if (typeof content === 'string')
    return { type: decodeContent(content) === content ? 'string' : 'json-string', text: content };
  if (Array.isArray(content)) return { type: 'array', text: asJson(content) };
  if (isRecord(content)) return { type: 'object', text: asJson(content) };
  return { type: typeof content === 'boolean' ? 'boolean' : 'number', text: asJson(content) };
}

export function flattenResultRecords(records: readonly ResultRecord[], resultTable: ResultTableName): RowsByTable {
  const out: RowsByTable = {};
  for (const r of records) {
    const decoded = contentColumns(r.content);
    push(out, resultTable, {
      id: r.id,
      scraper_id: r.scraper_id,
      scraping_run_id: r.scraping_run_id,
      scraper_name: r.scraper_name,
      scraped_url: r.scraped_url,
      status: r.status,
      content_type: decoded.type,
      content: decoded.text,
      created_at: r.created_at,
      updated_at: r.updated_at,
      extra: extraJson(r, RESULT_TYPED),
    });
  }
  return out;
}
