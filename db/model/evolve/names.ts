// Naming rules of the inferred tables (docs/inferred-tables.md): how a pipeline name becomes a table name and a
// JSON key path becomes a candidate column or child table name. The candidates are only proposals: the registry
// turns them into the names a destination can hold and that no other key already has (naming.ts nameFor). They
// are part of the product's contract with analysts: a rule changed here renames new columns only (recorded ones
// keep their names), so they change with a rebuild in mind.
import { fitName, normalizeKey, PATH_SEPARATOR } from './naming.js';
import { CAPABILITIES } from '../../../destinations/capabilities.js';

export { normalizeKey, PATH_SEPARATOR };

/**
 * Root table names are fitted to the shortest identifier limit of any destination (Postgres's 63 bytes), so a
 * pipeline's table has the same name wherever it is loaded.
 */
export function portableIdentifierBytes(): number {
  return Math.min(...Object.values(CAPABILITIES).map((c) => c.maxIdentifierBytes));
}

/** A name within portableIdentifierBytes(): long names keep a readable head and end with 8 hex digits of their hash. */
export function fitIdentifier(name: string): string {
  return fitName(name, portableIdentifierBytes());
}

/**
 * `<pipeline>_items`, the pipeline name in snake_case: `acme-leads` -> `acme_leads_items`. Two pipeline names that
 * give one table name (`crm-leads`, `crm_leads`) are refused (pipelines/names.ts at validate time, and the loader
 * before it writes into a table another pipeline created).
 */
export function contentTableName(pipeline: string): string {
  return fitIdentifier(`${normalizeKey(pipeline)}_items`);
}

/** The candidate child table of an array: `<parent table>__<column path of the array>`. */
export function childTableName(parentTable: string, columnPath: string): string {
  return `${parentTable}${PATH_SEPARATOR}${columnPath}`;
}

/** The candidate column of a nested key path. */
export function columnPath(prefix: string, key: string): string {
  const name = normalizeKey(key);
  return prefix === '' ? name : `${prefix}${PATH_SEPARATOR}${name}`;
}

/** A type change keeps the first column and adds `<column>__v_<type>` for values of the new type (dlt's variant). */
export function variantColumn(base: string, type: string): string {
  return `${base}${PATH_SEPARATOR}v_${type}`;
}
