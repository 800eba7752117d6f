// The one naming function of the inferred tables (docs/inferred-tables.md): every table, column, variant,
// overflow column and index name the loader creates comes out of `nameFor`, given the destination's capability
// (identifier length, system names it reserves, column and row budgets) and the names already taken. Which key a
// name belongs to is recorded in schema_history.source_key, and the registry maps a key to its recorded name
// before any candidate is considered (registry.ts), so the same key keeps its column across runs and workers.
import { hexDigest } from '../hash.js';
import type { LogicalType } from './types.js';
import type { DestinationCapabilities, DestinationName } from '../../../destinations/contract.js';

export type Dialect = DestinationName;

export interface NameCapability {
  dialect: Dialect;
  /** Longest identifier in UTF-8 bytes (Postgres truncates at 63; SQLite and DuckDB have no limit, we cap). */
  maxIdentifierBytes: number;
  /** Names the database gives a meaning of its own (system columns), which a data column must not take. */
  reserved: ReadonlySet<string>;
  /** Columns a table may have before further fields go to its JSON overflow column. */
  maxColumns: number;
  /**
   * Bytes a row may need in the worst case (Postgres: a heap row must fit one 8 KB page, and fixed-width values
   * cannot be moved out of line), counted with `columnBytes`; undefined: no row limit to budget for.
   */
  maxRowBytes?: number;
}

/** The naming capability of a destination: the capabilities of the adapter a handle carries (destinations/<name>/). */
export function capabilityOf(of: {
  readonly dialect: Dialect;
  readonly adapter: { readonly capabilities: DestinationCapabilities };
}): NameCapability {
  const c = of.adapter.capabilities;
  return {
    dialect: of.dialect,
    maxIdentifierBytes: c.maxIdentifierBytes,
    reserved: c.reservedNames,
    maxColumns: c.maxColumns,
    ...(c.maxRowBytes !== undefined ? { maxRowBytes: c.maxRowBytes } : {}),
  };
}

/**
 * Worst-case bytes a value of a column takes in a Postgres heap row: fixed-width types their width; text-like
 * values that do not fit are moved out of line (TOAST) to an 18-byte pointer, but values up to 24 bytes stay
 * inline, so 24 bounds them.
 */
export function columnBytes(type: LogicalType): number {
  switch (type) {
    case 'bool':
      return 1;
    case 'bigint':
    case 'double':
    case 'timestamp':
      return 8;
    default:
      return 24;
  }
}

/** Joins a nested object's key path into one column name (`address` + `city` -> `address__city`), as dlt does. */
export const PATH_SEPARATOR = '__';

const MAX_NORMALIZED = 10_000;
const normalized = new Map<string, string>();

/**
 * snake_case of one JSON key: camelCase split (`jobTitle` -> `job_title`), lower case, every run of characters
 * that are neither letters nor digits one `_` (letters and digits of any script are kept: `名前` stays `名前`,
 * accents are dropped: `é` -> `e`), runs of `_` collapsed (so `__` only ever means nesting), no leading or
 * trailing `_`, a leading digit prefixed with `_`. A key with no letter or digit at all (an emoji, punctuation) is
 * spelled by its code points (`🚀` -> `u1f680`), so it never collapses to a bare `_`. Distinct keys may still
 * normalise alike (`a b`, `a-b`, `A_B`); the registry resolves that (nameFor).
 */
export function normalizeKey(key: string): string {
  let name = normalized.get(key);
  if (name === undefined) {
    // Content repeats the same few dozen keys in every record: the regex chain ran once per field per row.
    if (normalized.size >= MAX_NORMALIZED) normalized.clear();
    normalized.set(key, (name = normalizeUncached(key)));
  }
  return name;
}

function normalizeUncached(key: string): string {
  const snake = [...key.normalize('NFKC')]
    .map(latinBase)
    .join('')
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1_$2')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_]+/gu, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  if (snake === '') {
    const points = [...key].map((c) => `u${c.codePointAt(0)!.toString(16)}`).join('_');
    return points === '' ? 'empty_key' : points;
  }
  return /^\p{N}/u.test(snake) ? `_${snake}` : snake;
}

/** `é` -> `e`: a character whose decomposition is ASCII plus marks becomes that ASCII; others (名, 한, ß) stay. */
function latinBase(ch: string): string {
  if (ch.charCodeAt(0) < 128) return ch;
  const base = ch.normalize('NFKD').replace(/\p{M}+/gu, '');
  return base !== '' && /^[\x20-\x7e]+$/.test(base) ? base : ch;
}

/** The longest prefix of `s` within `maxBytes` UTF-8 bytes that does not split a character. */
function headBytes(s: string, maxBytes: number): string {
  let bytes = 0;
  let out = '';
  for (const ch of s) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > maxBytes) break;
    bytes += n;
    out += ch;
  }
  return out;
}

/** A name within `maxBytes`: a long name keeps a readable head and ends with `_` and 8 hex digits of its hash. */
export function fitName(name: string, maxBytes: number): string {
  if (Buffer.byteLength(name, 'utf8') <= maxBytes) return name;
  return `${headBytes(name, maxBytes - 9)}_${hexDigest('sha1', name).slice(0, 8)}`;
}

export type NameKind = 'table' | 'column' | 'index';

export interface NameRequest {
  kind: NameKind;
  /** The readable candidate (normalised path, variant, child table), before length and collision handling. */
  candidate: string;
  /** Whether a name is already taken in its namespace (a table's columns; the database's relations). */
  taken: (name: string) => boolean;
  /** For columns: names the table reserves besides the database's own (its system and model columns). */
  reserved?: ReadonlySet<string>;
}

/**
 * The name of a new table, column or index: the candidate, a leading `_` while it is a reserved or system name,
 * shortened with a hash suffix past the identifier limit, then, while the name is taken by another key, the first
 * free of `<name>__2`, `<name>__3`, … (each shortened again if needed). A key path segment never starts with a digit
 * (normalizeKey), so `__2` can never be another key's path. Deterministic: the same candidate and taken set give
 * the same name on every worker.
 */
export function nameFor(cap: NameCapability, req: NameRequest): string {
  let base = req.candidate;
  if (req.kind === 'column') {
    while (cap.reserved.has(base.toLowerCase()) || req.reserved?.has(base)) base = `_${base}`;
  }
  let name = fitName(base, cap.maxIdentifierBytes);
  for (let n = 2; req.taken(name); n++) name = fitName(`${base}${PATH_SEPARATOR}${n}`, cap.maxIdentifierBytes);
  return name;
}

/**
 * The index name of an inferred table. It ends in `_ix_`: no table name can (normalised keys and hash suffixes never
 * end in `_`), so an index never takes the name of a child table such as `<table>__x_pipeline_root_key_idx`.
 */
export function indexNameFor(cap: NameCapability, table: string, columns: readonly string[]): string {
  const name = `${table}_${columns.join('_')}_ix_`;
  if (Buffer.byteLength(name, 'utf8') <= cap.maxIdentifierBytes) return name;
  return `${headBytes(name, cap.maxIdentifierBytes - 13)}_${hexDigest('sha1', name).slice(0, 8)}_ix_`;
}

// ---- source keys: what a name stands for ----------------------------------------------------------------

/** Source key of a column: the original key path within its table, as a JSON array (`["Company","name"]`). */
export function columnSource(path: readonly string[]): string {
  return JSON.stringify(path);
}

/** Source key of a variant column: the base column's source and the value type it holds. */
export function variantSource(base: string, type: LogicalType): string {
  return JSON.stringify({ variant_of: JSON.parse(base) as unknown, type });
}

/** Source key of a table's JSON overflow column. */
export const OVERFLOW_SOURCE = JSON.stringify({ overflow: true });
export const OVERFLOW_CANDIDATE = '_overflow';

/** Source key of a content table: the list paths from the root (`[]` the root, `[["tags"]]`, `[["a"],["b"]]`). */
export function tableSource(listPaths: ReadonlyArray<readonly string[]>): string {
  return JSON.stringify(listPaths);
}

/** The key path a column source names (for the overflow JSON), or undefined for variants and overflow. */
export function pathOfSource(source: string): string[] | undefined {
  const v = JSON.parse(source) as unknown;
  return Array.isArray(v) ? (v as string[]) : undefined;
}
