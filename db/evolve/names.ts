// Naming rules of the inferred tables (db/README.md, "Inferred tables"): how a pipeline name becomes a table name
// and a JSON key becomes a column name. They are part of the product's contract with analysts: a rule changed
// here renames columns, so they change only with a rebuild in mind.
import { hexDigest } from '../hash.js';

/** Postgres truncates identifiers to 63 bytes; longer names are shortened with a hash so they stay distinct. */
export const MAX_IDENTIFIER_BYTES = 63;

/** Joins a nested object's key path into one column name (`address` + `city` -> `address__city`), as dlt does. */
export const PATH_SEPARATOR = '__';

/**
 * snake_case of one JSON key: camelCase split (`jobTitle` -> `job_title`), lower case, every run of other characters
 * one `_`, runs of `_` collapsed (so `__` only ever means nesting), no leading or trailing `_`, a leading digit
 * prefixed with `_`. An empty result (a key of only punctuation) becomes `_`.
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

const MAX_NORMALIZED = 10_000;
const normalized = new Map<string, string>();

function normalizeUncached(key: string): string {
  const snake = key
    .normalize('NFKD')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  if (snake === '') return '_';
  return /^[0-9]/.test(snake) ? `_${snake}` : snake;
}

/** A name within the identifier limit: long names keep a readable head and end with 8 hex digits of their hash. */
export function fitIdentifier(name: string): string {
  if (Buffer.byteLength(name, 'utf8') <= MAX_IDENTIFIER_BYTES) return name;
  const hash = hexDigest('sha1', name).slice(0, 8);
  return `${name.slice(0, MAX_IDENTIFIER_BYTES - 9)}_${hash}`;
}

/** `<pipeline>_items`, the pipeline name in snake_case: `acme-leads` -> `acme_leads_items`. */
export function contentTableName(pipeline: string): string {
  return fitIdentifier(`${normalizeKey(pipeline)}_items`);
}

/** The child table of an array: `<parent table>__<column path of the array>`. */
export function childTableName(parentTable: string, columnPath: string): string {
  return fitIdentifier(`${parentTable}${PATH_SEPARATOR}${columnPath}`);
}

/** The column of a nested key path. */
export function columnPath(prefix: string, key: string): string {
  const name = normalizeKey(key);
  return prefix === '' ? name : `${prefix}${PATH_SEPARATOR}${name}`;
}

/** A type change keeps the first column and adds `<column>__v_<type>` for values of the new type (dlt's variant). */
export function variantColumn(base: string, type: string): string {
  return fitIdentifier(`${base}${PATH_SEPARATOR}v_${type}`);
}

/**
 * A top-level key whose name is taken by a system column (`pipeline`, `load_id`, …) or a fixed column of a model
 * table gets a leading `_`; normalized keys never start with `_` otherwise (except before a digit).
 */
export function avoidReserved(name: string, reserved: ReadonlySet<string>): string {
  let out = name;
  while (reserved.has(out)) out = `_${out}`;
  return out;
}
