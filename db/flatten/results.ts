// Result records (results list, scraping-run detail) -> one of the result tables, plus a generic flattening
// of `content`, whose structure depends on the scraper: a string in the service's documents, objects in the
// simulator. See db/README.md for the design.
import { parseJson } from '../../client/json.js';
import type { ResultRecord } from '../../client/schemas.js';
import type { ResultTableName } from '../tables.js';
import { asJson, childPath, extraJson, isRecord, push, type Row, type RowsByTable } from './values.js';

const RESULT_TYPED = new Set([
  'id', 'scraper_id', 'scraping_run_id', 'scraper_name', 'scraped_url', 'status', 'content', 'created_at', 'updated_at',
]);

export type ContentType = 'null' | 'string' | 'json-string' | 'object' | 'array' | 'number' | 'boolean';

/** A string holding a JSON object or array is flattened as that JSON; any other string is plain text. */
function decodeContent(content: unknown): { type: ContentType; text: string | null; value: unknown } {
  if (content === null || content === undefined) return { type: 'null', text: null, value: null };
  if (typeof content === 'string') {
    const t = content.trimStart();
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        return { type: 'json-string', text: content, value: parseJson(content) };
      } catch {
        // Not JSON after all: plain text.
      }
    }
    return { type: 'string', text: content, value: content };
  }
  if (Array.isArray(content)) return { type: 'array', text: asJson(content), value: content };
  if (isRecord(content)) return { type: 'object', text: asJson(content), value: content };
  if (typeof content === 'boolean') return { type: 'boolean', text: asJson(content), value: content };
  return { type: 'number', text: asJson(content), value: content };
}

function scalarRow(path: string, v: unknown): Row {
  const row: Row = { path, value_type: 'null', value_text: null, value_number: null, value_bool: null };
  if (typeof v === 'string') {
    row['value_type'] = 'string';
    row['value_text'] = v;
  } else if (typeof v === 'number') {
    row['value_type'] = 'number';
    row['value_number'] = v;
  } else if (typeof v === 'bigint') {
    // Beyond 2^53: exact digits in value_text, nearest double in value_number.
    row['value_type'] = 'number';
    row['value_text'] = v.toString();
    row['value_number'] = Number(v);
  } else if (typeof v === 'boolean') {
    row['value_type'] = 'boolean';
    row['value_bool'] = v;
  }
  return row;
}

/**
 * Walks content: every scalar leaf becomes a field row at its JSONPath; objects are walked; each element of
 * an array that is an object becomes an item row (kept whole as JSON, not walked further), other elements
 * are walked by index.
 */
export function flattenContent(content: unknown): { fields: Row[]; items: Row[] } {
  const fields: Row[] = [];
  const items: Row[] = [];
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v)) {
      v.forEach((el, i) => {
        if (isRecord(el)) items.push({ array_path: path, list_index: i, item: asJson(el) });
        else walk(el, childPath(path, i));
      });
    } else if (isRecord(v)) {
      for (const [k, child] of Object.entries(v)) walk(child, childPath(path, k));
    } else {
      fields.push(scalarRow(path, v));
    }
  };
  const decoded = decodeContent(content);
  if (decoded.type !== 'null') walk(decoded.value, '$');
  return { fields, items };
}

export function flattenResultRecords(records: readonly ResultRecord[], resultTable: ResultTableName): RowsByTable {
  const out: RowsByTable = {};
  for (const r of records) {
    const decoded = decodeContent(r.content);
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
    const { fields, items } = flattenContent(r.content);
    const parent = { result_table: resultTable, result_id: r.id };
    for (const f of fields) push(out, 'result_content_fields', { ...parent, ...f, scraping_run_id: r.scraping_run_id });
    for (const it of items) push(out, 'result_content_items', { ...parent, ...it, scraping_run_id: r.scraping_run_id });
  }
  return out;
}
