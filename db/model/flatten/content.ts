// Result content -> rows of the pipeline's inferred tables (pure: no I/O, no schema knowledge). Like dlt's
// normalizer: scalar fields become columns, nested objects are flattened into `a__b` columns, and each nested
// array becomes a child table `<table>__<path>` whose rows carry their parent's key and their list index (arrays
// of scalars give one `value` column). Which column and SQL type each value finally lands in is decided by the
// loader against the table's registry (db/store/evolve/), so a type change never fails here.
import { hexDigest } from '../hash.js';
import { canonicalTimestamp } from '../../../lib/iso-timestamp.js';
import { parseJson, stringifyJson } from '../../../lib/json.js';
import type { ResultRecord } from '../../../client/schemas.js';
import { MergeKeyError } from '../evolve/errors.js';
import { childTableName, columnPath } from '../evolve/names.js';
import { columnSource, tableSource } from '../evolve/naming.js';
import type { LogicalType } from '../evolve/types.js';
import { isRecord, type Field } from './values.js';

export type { Field };

/** Columns the loader fills on every root row; content keys with these names get a leading `_` (naming.ts). */
export const ROOT_SYSTEM_COLUMNS: ReadonlyArray<readonly [string, LogicalType]> = [
  ['pipeline', 'text'],
  ['row_key', 'text'],
  ['result_id', 'bigint'],
  ['scraping_run_id', 'bigint'],
  ['scraped_url', 'text'],
  // timestamp since the service's timestamps are typed; content tables made before keep their text column.
  ['result_created_at', 'timestamp'],
  ['load_id', 'bigint'],
  ['loaded_at', 'timestamp'],
  ['row_hash', 'text'],
];
/** Columns of every child row: its own key, the root row's and the parent row's key, and the list index. */
export const CHILD_SYSTEM_COLUMNS: ReadonlyArray<readonly [string, LogicalType]> = [
  ['pipeline', 'text'],
  ['row_key', 'text'],
  ['root_key', 'text'],
  ['parent_key', 'text'],
  ['list_index', 'bigint'],
  ['load_id', 'bigint'],
  ['loaded_at', 'timestamp'],
];
/**
 * Deepest nesting of objects and lists in one result's content that is flattened. Deeper content (a few hundred
 * levels is garbage, not data) is rejected alone (rejected_results) and its siblings load.
 */
export const MAX_CONTENT_DEPTH = 100;

/** A result that cannot be loaded, with the reason; the loader records it in rejected_results. */
export interface RejectedResult {
  resultId: string;
  scrapingRunId: string | null;
  reason: string;
}

class ContentRejected extends Error {}

export interface ContentRow {
  /** Candidate table name; the registry maps `tableSource` to the table actually used (naming.ts). */
  table: string;
  /** The list paths from the root to this row's table (naming.ts tableSource). */
  tableSource: string;
  rowKey: string;
  fields: Field[];
}
export interface ContentChildRow extends ContentRow {
  rootKey: string;
  parentKey: string;
  listIndex: number;
}
export interface ContentRootRow extends ContentRow {
  resultId: number | bigint;
  scrapingRunId: number | bigint | null;
  scrapedUrl: string | null;
  resultCreatedAt: string | null;
  /** Hash of the whole content (children included) and the scraped URL: equal hash, nothing to rewrite. */
  rowHash: string;
  children: ContentChildRow[];
}

export interface ContentOptions {
  /** The root table (names.ts contentTableName). */
  table: string;
  /** Content paths (`email`, `author.handle`) whose values identify a row; absent: the result id does. */
  mergeKey?: readonly string[] | undefined;
}

/** Content as a value: JSON held in a string is parsed (the service's documents send it as text). */
export function decodeContent(content: unknown): unknown {
  if (typeof content !== 'string') return content ?? null;
  const t = content.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return parseJson(content);
    } catch {
      // Not JSON after all: plain text.
    }
  }
  return content;
}

function walkObject(
  obj: Record<string, unknown>,
  prefix: string,
  path: readonly string[],
  row: ContentRow,
  lists: ReadonlyArray<readonly string[]>,
  rootKey: string,
  children: ContentChildRow[],
  depth: number,
): void {
  if (depth > MAX_CONTENT_DEPTH) throw new ContentRejected(`content nested deeper than ${MAX_CONTENT_DEPTH} levels`);
  for (const [key, v] of Object.entries(obj)) {
    const col = columnPath(prefix, key);
    const at = [...path, key];
    if (isRecord(v)) walkObject(v, col, at, row, lists, rootKey, children, depth + 1);
    else if (Array.isArray(v))
      walkArray(v, childTableName(row.table, col), [...lists, at], row.rowKey, rootKey, children, depth + 1);
    else row.fields.push([col, v, columnSource(at)]);
  }
}

// A list element that is not an object is the row's `value`; its source is the element itself (the empty path),
// so an element object's own "value" key is another column.
const ELEMENT_SOURCE = columnSource([]);

function walkArray(
  items: readonly unknown[],
  table: string,
  lists: ReadonlyArray<readonly string[]>,
  parentKey: string,
  rootKey: string,
  children: ContentChildRow[],
  depth: number,
): void {
  if (depth > MAX_CONTENT_DEPTH) throw new ContentRejected(`content nested deeper than ${MAX_CONTENT_DEPTH} levels`);
  const source = tableSource(lists);
  items.forEach((el, listIndex) => {
    const child: ContentChildRow = {
      table,
      tableSource: source,
      rowKey: `${parentKey}#${listIndex}`,
      rootKey,
      parentKey,
      listIndex,
      fields: [],
    };
    children.push(child);
    if (isRecord(el)) walkObject(el, '', [], child, lists, rootKey, children, depth + 1);
    else if (Array.isArray(el)) {
      // A list inside a list is kept whole as JSON (walking it would need a table per nesting level).
      child.fields.push(['value', el, ELEMENT_SOURCE]);
    } else child.fields.push(['value', el, ELEMENT_SOURCE]);
  });
}

function valueAt(content: unknown, path: string): unknown {
  let v: unknown = content;
  for (const part of path.split('.')) {
    if (!isRecord(v) || !(part in v)) return undefined;
    v = v[part];
  }
  return v;
}

/**
 * The row key: the merge key's values as a JSON array (`["ada@example.com"]`), else the result id. A merge key
 * value that is null falls back to the result id (a lead without an email is still a lead, but not the same as
 * another lead without one); a path the content does not have at all is an error, most likely a typo.
 */
function rowKeyOf(r: ResultRecord, content: unknown, mergeKey: readonly string[] | undefined): string {
  const id = r.id.toString();
  if (!mergeKey || mergeKey.length === 0) return id;
  const values: unknown[] = [];
  for (const path of mergeKey) {
    const v = valueAt(content, path);
    if (v === undefined) {
      const keys = isRecord(content)
        ? Object.keys(content).slice(0, 20).join(', ')
        : `content is ${content === null ? 'null' : typeof content}`;
      throw new MergeKeyError(
        `merge_key path '${path}' is not in the content of result ${id} (its fields: ${keys}); fix merge_key in the pipeline file`,
      );
    }
    if (v === null) return id;
    if (typeof v === 'object')
      throw new MergeKeyError(
        `merge_key path '${path}' holds ${Array.isArray(v) ? 'a list' : 'an object'} in result ${id}; a merge key must name scalar fields`,
      );
    values.push(v);
  }
  return stringifyJson(values);
}

/**
 * Rows of one batch of result records, and the records that cannot be loaded (a merge key field missing or not a
 * scalar, content nested too deep) with their reasons: those are left out and the others load. Records whose key
 * repeats collapse to the one with the highest result id (the newest); roots come out sorted by key so concurrent
 * loads lock shared keys in one order.
 */
export function flattenContent(
  records: readonly ResultRecord[],
  opts: ContentOptions,
): { roots: ContentRootRow[]; rejected: RejectedResult[] } {
  const byKey = new Map<string, ContentRootRow>();
  const rejected: RejectedResult[] = [];
  for (const r of records) {
    let root: ContentRootRow;
    let rowKey: string;
    try {
      const content = decodeContent(r.content);
      rowKey = rowKeyOf(r, content, opts.mergeKey);
      const previous = byKey.get(rowKey);
      if (previous && BigInt(previous.resultId) > BigInt(r.id)) continue;
      const scrapedUrl = typeof r.scraped_url === 'string' ? r.scraped_url : null;
      root = {
        table: opts.table,
        tableSource: ROOT_SOURCE,
        rowKey,
        fields: [],
        resultId: r.id,
        scrapingRunId: r.scraping_run_id ?? null,
        scrapedUrl,
        // An instant in the one stored form (a text that is not one is NULL; raw_responses keeps the result).
        resultCreatedAt: typeof r.created_at === 'string' ? canonicalTimestamp(r.created_at) : null,
        rowHash: hexDigest('sha1', stringifyJson([content, scrapedUrl])),
        children: [],
      };
      // Content that is not an object (plain text, a bare list) is one field named `value`, as in dlt.
      const obj = isRecord(content) ? content : content === null ? {} : { value: content };
      walkObject(obj, '', [], root, [], rowKey, root.children, 1);
    } catch (err) {
      if (!(err instanceof ContentRejected) && !(err instanceof MergeKeyError)) throw err;
      rejected.push({
        resultId: r.id.toString(),
        scrapingRunId: r.scraping_run_id == null ? null : String(r.scraping_run_id),
        reason: err.message,
      });
      continue;
    }
    byKey.set(rowKey, root);
  }
  const roots = [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  return { roots, rejected };
}

const ROOT_SOURCE = tableSource([]);

/** flattenContent for callers that take no rejection: the first rejected record throws its error. */
export function flattenContentRows(records: readonly ResultRecord[], opts: ContentOptions): ContentRootRow[] {
  const { roots, rejected } = flattenContent(records, opts);
  if (rejected.length > 0)
    throw new (rejected[0]!.reason.startsWith('merge_key') ? MergeKeyError : Error)(rejected[0]!.reason);
  return roots;
}
