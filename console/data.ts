// A table of a pipeline, one page at a time by keyset pagination: `WHERE pipeline = ? AND <after the cursor>
// ORDER BY <sort>, <key> LIMIT n`. A page costs an index range scan whatever page it is (OFFSET would read every row
// before it); sorting by the key, the default, is served by the primary key index, whose first column is
// `pipeline`. Sorting by another column orders the pipeline's rows (a sort per page on a large table unless that
// column is indexed); NULLs sort last in every dialect, so the keyset condition is the same in all three.
import { quoteIdent } from '../db/store/sql.js';
import { describe, type TableMeta } from './catalog.js';
import type { Reader, Row } from './source.js';

export const DEFAULT_PAGE_ROWS = 50;
export const MAX_PAGE_ROWS = 500;
/** Row counts stop here: an exact count of a huge table would be the slowest query of the page. */
export const COUNT_CAP = 100_000;

export interface ViewSpec {
  table: string;
  pipeline: string;
  /** A column of the table, or undefined for the primary key order. */
  sort?: string | undefined;
  desc?: boolean | undefined;
  /** Opaque cursor from a previous page's `next`. */
  after?: string | undefined;
  limit?: number | undefined;
}

export interface DataPage {
  meta: TableMeta;
  /** Key columns used for order and cursor (the primary key less `pipeline`, which the page fixes). */
  key: string[];
  rows: Row[];
  next: string | null;
  /** Rows of the pipeline in the table, up to COUNT_CAP (then `capped`). */
  count: number;
  capped: boolean;
  sort: string | undefined;
  desc: boolean;
}

export class ViewError extends Error {
  override readonly name = 'ViewError';
}

/** The validated parts of a view: its table's metadata, sort column and key. */
export async function resolveView(
  r: Reader,
  v: ViewSpec,
): Promise<{ meta: TableMeta; key: string[]; sort: string | undefined; desc: boolean; numericKeys: string[] }> {
  const meta = await describe(r, v.table);
  if (!meta) throw new ViewError(`no table "${v.table}" in this database`);
  if (!meta.columns.some((c) => c.name === 'pipeline'))
    throw new ViewError(`table "${v.table}" has no pipeline column: it is not a pipeline's data`);
  if (v.sort !== undefined && !meta.columns.some((c) => c.name === v.sort)) {
    throw new ViewError(
      `table "${v.table}" has no column "${v.sort}" to sort by (columns: ${meta.columns.map((c) => c.name).join(', ')})`,
    );
  }
  let key = meta.primaryKey.filter((c) => c !== 'pipeline');
  // A table without a primary key is ordered by all its columns: still a total order for distinct rows.
  if (key.length === 0) key = meta.columns.map((c) => c.name).filter((c) => c !== 'pipeline');
  const sort = v.sort !== undefined && !(key.length === 1 && key[0] === v.sort) ? v.sort : undefined;
  const numericKeys: string[] = [];
  for (const k of key) {
    const col = meta.columns.find((c) => c.name === k);
    if (col && TEXT_TYPES.test(col.type.trim()) && (await digitsOnly(r, v.table, v.pipeline, k))) numericKeys.push(k);
  }
  return { meta, key, sort, desc: v.desc === true, numericKeys };
}

/**
 * Whether a text key column of the pipeline holds only digit strings (row_key '1', '2', '10'): such keys are ordered
 * as numbers (by length, then text), not as text (1, 10, 2). Looked at in the first COUNT_CAP rows; a later row
 * that is not digits only makes that order still a total one.
 */
async function digitsOnly(r: Reader, table: string, pipeline: string, column: string): Promise<boolean> {
  const c = quoteIdent(column);
  const [row] = await r.all(
    `SELECT count(*) AS n FROM (SELECT ${c} AS k FROM ${quoteIdent(table)} WHERE pipeline = ${r.ph(1)} LIMIT ${COUNT_CAP}) sample
      WHERE k IS NULL OR k = '' OR ltrim(k, '0123456789') <> ''`,
    [pipeline],
  );
  return Number(row?.['n'] ?? 1) === 0;
}

interface Cursor {
  s?: unknown;
  k: unknown[];
}

// 64-bit integers travel tagged, and come back as bigint: bound as text, DuckDB would refuse to compare a BIGINT
// column with it, and a JS number would round ids beyond 2^53.
function encodeCursor(c: Cursor): string {
  return Buffer.from(
    JSON.stringify(c, (_k, x: unknown) => (typeof x === 'bigint' ? { $int: x.toString() } : x)),
  ).toString('base64url');
}

function untag(x: unknown): unknown {
  if (x && typeof x === 'object' && !Array.isArray(x)) {
    const v = (x as { $int?: unknown }).$int;
    if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
    throw new ViewError('the page cursor is not valid (open the first page again)');
  }
  return x;
}

function decodeCursor(s: string, keyLength: number, withSort: boolean): Cursor {
  let c: Cursor;
  try {
    c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Cursor;
  } catch {
    throw new ViewError('the page cursor is not valid (open the first page again)');
  }
  if (!c || !Array.isArray(c.k) || c.k.length !== keyLength || (withSort && !('s' in c)))
    throw new ViewError('the page cursor does not fit this view (open the first page again)');
  return { ...(withSort ? { s: untag(c.s) } : {}), k: c.k.map(untag) };
}

/** SELECT ... FROM table WHERE pipeline = ? [AND after cursor] ORDER BY ...: the statement of a view (LIMIT aside). */
export function viewSql(
  r: Pick<Reader, 'ph'>,
  v: {
    table: string;
    pipeline: string;
    key: string[];
    sort: string | undefined;
    desc: boolean;
    after?: string | undefined;
    notNullSort?: boolean;
    numericKeys?: string[];
  },
  select = '*',
): { sql: string; params: unknown[] } {
  const params: unknown[] = [v.pipeline];
  const ph = () => r.ph(params.length);
  const dir = v.desc ? 'DESC' : 'ASC';
  const op = v.desc ? '<' : '>';
  // A key of digit strings is ordered by (length, text): 2 before 10, as numbers.
  const numeric = new Set(v.numericKeys ?? []);
  const keyExprs = v.key.flatMap((k) =>
    numeric.has(k) ? [`length(${quoteIdent(k)})`, quoteIdent(k)] : [quoteIdent(k)],
  );
  const keyTuple = `(${keyExprs.join(', ')})`;
  const where = [`pipeline = ${r.ph(1)}`];
  if (v.after !== undefined) {
    const c = decodeCursor(v.after, v.key.length, v.sort !== undefined);
    const keyParams = () =>
      `(${c.k
        .flatMap((x, i) => (numeric.has(v.key[i]!) ? [x === null ? null : String(x).length, x] : [x]))
        .map((x) => {
          params.push(x);
          return ph();
        })
        .join(', ')})`;
    if (v.sort === undefined) {
      where.push(`${keyTuple} ${op} ${keyParams()}`);
    } else {
      const s = quoteIdent(v.sort);
      if (c.s === null) {
        where.push(`(${s} IS NULL AND ${keyTuple} ${op} ${keyParams()})`);
      } else {
        params.push(c.s);
        const a = ph();
        params.push(c.s);
        const b = ph();
        where.push(
          `(${s} ${op} ${a} OR (${s} = ${b} AND ${keyTuple} ${op} ${keyParams()})${v.notNullSort ? '' : ` OR ${s} IS NULL`})`,
        );
      }
    }
  }
  const order = [
    ...(v.sort !== undefined
      ? [...(v.notNullSort ? [] : [`(${quoteIdent(v.sort)} IS NULL)`]), `${quoteIdent(v.sort)} ${dir}`]
      : []),
    ...keyExprs.map((k) => `${k} ${dir}`),
  ];
  return {
    sql: `SELECT ${select} FROM ${quoteIdent(v.table)} WHERE ${where.join(' AND ')} ORDER BY ${order.join(', ')}`,
    params,
  };
}

/** Text a page reads of one cell: a page shows 120 characters, and a raw body or JSON document can be megabytes. */
export const CELL_CHARS = 2000;

const TEXT_TYPES = /^(text|json|jsonb|varchar|character varying|character|char|clob|)$/i;

export async function dataPage(r: Reader, v: ViewSpec): Promise<DataPage> {
  const { meta, key, sort, desc, numericKeys } = await resolveView(r, v);
  const limit = Math.min(MAX_PAGE_ROWS, Math.max(1, Math.floor(v.limit ?? DEFAULT_PAGE_ROWS)));
  const notNullSort = sort !== undefined && meta.columns.find((c) => c.name === sort)!.notNull;
  // Text columns are cut in the query (not after reading them), except the key and sort columns the cursor is made of.
  const select = meta.columns
    .map((c) => {
      const q = quoteIdent(c.name);
      const whole = key.includes(c.name) || c.name === sort || !TEXT_TYPES.test(c.type.trim());
      return whole ? q : `substr(CAST(${q} AS ${r.adapter.sql.textType}), 1, ${CELL_CHARS}) AS ${q}`;
    })
    .join(', ');
  const { sql, params } = viewSql(
    r,
    { table: v.table, pipeline: v.pipeline, key, sort, desc, after: v.after, notNullSort, numericKeys },
    select,
  );
  // One row more than the page tells whether there is a next page without counting.
  const rows = await r.all(`${sql} LIMIT ${limit + 1}`, params);
  let next: string | null = null;
  if (rows.length > limit) {
    rows.length = limit;
    const last = rows[limit - 1]!;
    next = encodeCursor({
      ...(sort !== undefined ? { s: last[sort] ?? null } : {}),
      k: key.map((k) => last[k] ?? null),
    });
  }
  const [c] = await r.all(
    `SELECT count(*) AS n FROM (SELECT 1 AS one FROM ${quoteIdent(v.table)} WHERE pipeline = ${r.ph(1)} LIMIT ${COUNT_CAP + 1}) capped`,
    [v.pipeline],
  );
  const count = Number(c?.['n'] ?? 0);
  return { meta, key, rows, next, count: Math.min(count, COUNT_CAP), capped: count > COUNT_CAP, sort, desc };
}

export interface RawResponse {
  row: Row;
  /** The body as stored (its first `maxChars` characters), from the row that holds it when this one refers to it. */
  body: string;
  bodyChars: number;
  truncated: boolean;
}

/** A raw response by id (a row's load_id): the lineage of every data row. */
export async function rawResponse(r: Reader, id: number, maxChars: number): Promise<RawResponse | undefined> {
  const [row] = await r.all(
    `SELECT id, pipeline, kind, endpoint, request_key, workflow_id, scraping_run_id, received_at, loaded_at, body_sha256, body_bytes, body_ref, token_usage
       FROM raw_responses WHERE id = ${r.ph(1)}`,
    [id],
  );
  if (!row) return undefined;
  const holder = row['body_ref'] === null || row['body_ref'] === undefined ? id : Number(row['body_ref']);
  const [b] = await r.all(
    `SELECT substr(body, 1, ${Math.floor(maxChars)}) AS body, length(body) AS n FROM raw_responses WHERE id = ${r.ph(1)}`,
    [holder],
  );
  const bodyChars = Number(b?.['n'] ?? 0);
  return { row, body: String(b?.['body'] ?? ''), bodyChars, truncated: bodyChars > maxChars };
}
