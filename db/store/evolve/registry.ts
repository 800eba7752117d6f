// Schema evolution: which columns a batch needs that its tables lack, the pipeline's contract on them, and the
// DDL plus history rows that add them, inside the load's transaction. schema_history is both the history and
// the registry of inferred columns with their logical types (db/README.md, "Inferred tables").
//
// Concurrency. SQLite: BEGIN IMMEDIATE already admits one writer at a time. Postgres: a load reads the registry;
// if it will add columns it first takes a transaction advisory lock per table it changes (sorted), and only then
// ROW EXCLUSIVE on every table it writes (so no ALTER can slip between reading the registry and writing with its
// column list); it reads the registry again and adds what is still missing, once. A load that finds a change it
// did not lock for (another load added a column in between) restarts its transaction as a serialization failure
// instead of waiting while holding locks: no lock upgrade, no deadlock between two evolving loads.
import { hexDigest } from '../../model/hash.js';
import type { Database } from '../../../destinations/contract.js';
import { quoteIdent, withTransaction, type Param, type Tx } from '../sql.js';
import { PermanentLoadError, SchemaContractError } from '../../model/evolve/errors.js';
import { PATH_SEPARATOR, variantColumn } from '../../model/evolve/names.js';
import { HISTORY_SELECT, schemaColumnOf, selectSchemaHistory, type SchemaColumn } from './history.js';
import {
  capabilityOf,
  columnBytes,
  indexNameFor,
  nameFor,
  OVERFLOW_CANDIDATE,
  OVERFLOW_SOURCE,
  pathOfSource,
  variantSource,
  type NameCapability,
} from '../../model/evolve/naming.js';
import { accepts, sqlTypeOf, toParam, typeOfValue, widen, type LogicalType } from '../../model/evolve/types.js';
import type { Field } from '../../model/flatten/values.js';
import {
  commentStatements,
  contentTableComment,
  evolvedColumnComment,
  type Comment,
} from '../../model/schema/comments.js';
import { CHILD_SYSTEM_COLUMNS } from '../../model/flatten/content.js';
import { CONTENT_CHILD_DOCS, CONTENT_ROOT_DOCS } from '../../model/schema/descriptions.js';

export const SCHEMA_MODES = ['evolve', 'freeze', 'discard_columns'] as const;
/** evolve: add what is new; freeze: fail the batch on anything new; discard_columns: drop the new values, load the rest. */
export type SchemaMode = (typeof SCHEMA_MODES)[number];

export type TableColumns = Map<string, LogicalType>;
/** Inferred columns per table, from schema_history. */
export type Registry = Map<string, TableColumns>;

export interface SchemaChange {
  table: string;
  column: string;
  type: LogicalType;
  change: 'create_table' | 'add_column' | 'add_variant';
  variantOf?: string;
  /** What the column holds (naming.ts source keys); for create_table rows, the table's source. */
  source?: string;
}

/** How a table that does not exist yet is created: its system columns, key and index. */
export interface TableTemplate {
  systemColumns: ReadonlyArray<readonly [string, LogicalType]>;
  key: readonly string[];
  /** Columns of its one secondary index. */
  index: readonly string[];
}

/** The tables a batch touches: exact names, name prefixes (a content table's children), content roots. */
export interface RegistryScope {
  tables: readonly string[];
  prefixes: readonly string[];
  /** Content root tables: every table recorded with one of them as its root_table. */
  roots?: readonly string[];
}

/** The registry with what names stand for: the maps the naming decisions are made from. */
export interface RegistryState {
  columns: Registry;
  /** Per table: source key -> column. */
  sources: Map<string, Map<string, string>>;
  /** Per table: data columns recorded before source keys were (adopted by the first key whose candidate they are). */
  legacy: Map<string, Set<string>>;
  /** Content table source -> table. */
  tableOf: Map<string, string>;
  /** Tables recorded without a source (adopted by name). */
  legacyTables: Set<string>;
  /** Pipeline whose load created each table. */
  owners: Map<string, string>;
}

/** The inferred columns of a scope, as a load sees them (kept reads where the destination keeps them); read only. */
export async function readRegistry(tx: Tx, scope: RegistryScope): Promise<Registry> {
  return (await readRegistryStateKept(tx, scope)).columns;
}

/** The WHERE clause (and its parameters) selecting a scope's schema_history rows; undefined for an empty scope. */
function scopeWhere(tx: Tx, scope: RegistryScope): { where: string; params: Param[] } | undefined {
  const conds: string[] = [];
  const params: Param[] = [];
  for (const t of scope.tables) {
    params.push(t);
    conds.push(`table_name = ${tx.ph(params.length)}`);
  }
  for (const p of scope.prefixes) {
    params.push(p.length, p);
    conds.push(`substr(table_name, 1, ${tx.ph(params.length - 1)}) = ${tx.ph(params.length)}`);
  }
  for (const r of scope.roots ?? []) {
    params.push(r);
    conds.push(`root_table = ${tx.ph(params.length)}`);
  }
  return conds.length === 0 ? undefined : { where: conds.join(' OR '), params };
}

export async function readRegistryState(tx: Tx, scope: RegistryScope): Promise<RegistryState> {
  return stateOfScope(tx, scopeWhere(tx, scope));
}

async function stateOfScope(tx: Tx, sel: { where: string; params: Param[] } | undefined): Promise<RegistryState> {
  const state: RegistryState = {
    columns: new Map(),
    sources: new Map(),
    legacy: new Map(),
    tableOf: new Map(),
    legacyTables: new Set(),
    owners: new Map(),
  };
  if (!sel) return state;
  const rows = await tx.all(
    `SELECT table_name, column_name, data_type, change, source_key, pipeline FROM schema_history WHERE ${sel.where} ORDER BY table_name, column_name`,
    sel.params,
  );
  const tablesWithSource = new Set<string>();
  for (const r of rows) {
    const t = String(r['table_name']);
    const c = String(r['column_name']);
    const source = r['source_key'] === null || r['source_key'] === undefined ? null : String(r['source_key']);
    let cols = state.columns.get(t);
    if (!cols) state.columns.set(t, (cols = new Map()));
    cols.set(c, String(r['data_type']) as LogicalType);
    if (r['change'] === 'create_table') {
      if (!state.owners.has(t)) state.owners.set(t, String(r['pipeline']));
      if (source !== null) {
        state.tableOf.set(source, t);
        tablesWithSource.add(t);
      }
      continue;
    }
    if (source !== null) mapOf(state.sources, t).set(source, c);
    else setOf(state.legacy, t).add(c);
  }
  for (const t of state.columns.keys()) if (!tablesWithSource.has(t)) state.legacyTables.add(t);
  return state;
}

/**
 * Registry states kept per connection (destinations with Tx.registryKeeping: SQLite, DuckDB), by scope, with the version
 * they were read at. A marketplace load read and mapped its tables' ~60 registry rows for every response although
 * they change only when a column is added. A kept state is used while the version read in the current transaction
 * is the same; a transaction that changed the schema gets no version (no read of it is kept, none is used), and one
 * that changes the registry through evolveSchema stops using kept states for the rest of it (changedIn). Kept
 * states are never mutated: evolveSchema copies before it records its changes, and states with legacy names (which
 * plan() adopts by mutating them) are not kept.
 */
const keptStates = new WeakMap<object, Map<string, { version: string; state: RegistryState }>>();
/** Transactions that changed the registry (applyChanges): their later reads may hold uncommitted rows. */
const changedIn = new WeakSet<Tx>();
const KEPT_SCOPES = 64;

async function readRegistryStateKept(tx: Tx, scope: RegistryScope): Promise<RegistryState> {
  const sel = scopeWhere(tx, scope);
  const keeping = tx.registryKeeping;
  if (!keeping || !sel || changedIn.has(tx)) return stateOfScope(tx, sel);
  const version = await keeping.registryVersion(sel.where, sel.params);
  if (version === undefined) return stateOfScope(tx, sel);
  let kept = keptStates.get(keeping.connection);
  if (!kept) keptStates.set(keeping.connection, (kept = new Map()));
  const key = `${scope.tables.join('\u0001')}\u0002${scope.prefixes.join('\u0001')}\u0002${(scope.roots ?? []).join('\u0001')}`;
  const hit = kept.get(key);
  if (hit && hit.version === version) return hit.state;
  const state = await stateOfScope(tx, sel);
  if ([...state.legacy.values()].some((s) => s.size > 0)) return state;
  kept.delete(key);
  if (kept.size >= KEPT_SCOPES) kept.delete(kept.keys().next().value as string);
  kept.set(key, { version, state });
  return state;
}

function copyRegistry(reg: Registry): Registry {
  return new Map([...reg].map(([t, cols]) => [t, new Map(cols)]));
}

function mapOf<V>(m: Map<string, Map<string, V>>, k: string): Map<string, V> {
  let v = m.get(k);
  if (!v) m.set(k, (v = new Map()));
  return v;
}
function setOf(m: Map<string, Set<string>>, k: string): Set<string> {
  let v = m.get(k);
  if (!v) m.set(k, (v = new Set()));
  return v;
}

export interface EvolveRow {
  /** The table (model tables), or the candidate name of a content table. */
  table: string;
  /** A content table's source (naming.ts tableSource): the registry decides its name. */
  tableSource?: string;
  fields: readonly Field[];
}

export interface EvolveInput {
  pipeline: string;
  mode: SchemaMode;
  scope: RegistryScope;
  /** Rows whose fields need columns, each with its table. */
  rows: ReadonlyArray<EvolveRow>;
  /** Template of each table that may be created (inferred tables); undefined for fixed model tables. */
  templateOf(table: string): TableTemplate | undefined;
  /** Fixed columns of a model table, which inferred columns never take (undefined for inferred tables). */
  fixedColumnsOf(table: string): ReadonlySet<string> | undefined;
  /** The content root table the batch writes (recorded as root_table; its owner is checked); none for model tables. */
  rootTable?: string;
  /** Names the batch in a contract error: load id, scraping run, request. */
  describeBatch: string;
  loadId: number;
  changedAt: string;
  /**
   * Throw SchemaChangesRefused instead of changing anything when the rows need a new table or column: a caller
   * writing many responses at once (load-group.ts) then writes them one by one, so each change is
   * recorded under the load that brought it.
   */
  refuseChanges?: boolean;
}

export class SchemaChangesRefused extends Error {
  override name = 'SchemaChangesRefused';
  constructor(
    message: string,
    /** Indexes (in EvolveInput.rows) of the rows that bring a change. */
    readonly rows: readonly number[],
  ) {
    super(message);
  }
}

/** Two pipelines whose names give one table name: the second may not write into the first's tables. */
export class TableOwnerError extends PermanentLoadError {
  override name = 'TableNamespaceCollision';
}

export interface EvolveOutput {
  registry: Registry;
  /** Per input row (same order): the table it is written to. */
  tables: string[];
  /** Per input row (same order): [column, parameter] of each non-null field kept. */
  resolved: Array<Array<readonly [string, Param]>>;
  /** Tables created by this batch (their rows carry no earlier children to replace). */
  created: Set<string>;
  changes: SchemaChange[];
  /** Rows dropped because their table was new and the mode discards new structure. */
  discardedRows: Set<number>;
}

/** A legacy name (recorded without a source) taken over by a key, recorded so the next batch decides alike. */
interface Adoption {
  table: string;
  column: string | null;
  source: string;
}

/** Maps every row to a table and every field to a column, planning what is missing; pure given the registry. */
function plan(input: EvolveInput, state: RegistryState, cap: NameCapability) {
  const reg = state.columns;
  const planned = new Map<string, Map<string, SchemaChange>>();
  const newTables = new Set<string>();
  const assigned: Array<Array<readonly [string, unknown]>> = [];
  const changeRows = new Set<number>();
  const adoptions: Adoption[] = [];
  let current = 0;
  const typeIn = (table: string, column: string): LogicalType | undefined =>
    reg.get(table)?.get(column) ?? planned.get(table)?.get(column)?.type;
  const addPlanned = (c: SchemaChange) => {
    let m = planned.get(c.table);
    if (!m) planned.set(c.table, (m = new Map()));
    m.set(c.column, c);
    changeRows.add(current);
  };

  // 1. Tables: a content table's source maps to its recorded name; new sources get names in sorted order, so two
  // workers with the same registry decide alike whatever order their rows came in.
  const tables: string[] = new Array(input.rows.length);
  const newTableSources = new Map<string, string>();
  input.rows.forEach((row, i) => {
    if (row.tableSource === undefined) tables[i] = row.table;
    else if (input.templateOf(row.table) !== undefined && row.table === input.rootTable) tables[i] = row.table;
    else if (!state.tableOf.has(row.tableSource)) newTableSources.set(row.tableSource, row.table);
  });
  const batchTables = new Set<string>();
  const tableOf = new Map(state.tableOf);
  for (const source of byExactness(newTableSources)) {
    const candidate = newTableSources.get(source)!;
    const name = nameFor(cap, {
      kind: 'table',
      candidate,
      taken: (n) => batchTables.has(n) || (reg.has(n) && !state.legacyTables.has(n)) || n === input.rootTable,
    });
    batchTables.add(name);
    tableOf.set(source, name);
    if (state.legacyTables.has(name)) adoptions.push({ table: name, column: null, source });
  }
  input.rows.forEach((row, i) => {
    if (tables[i] === undefined) tables[i] = tableOf.get(row.tableSource!)!;
  });

  // 2. Columns: the same for every field's source within its table.
  // A table's reserved names: its system columns (found through the candidate name of a row that goes to it: a
  // shortened child table name need not start with its root's) or a model table's fixed columns.
  const systemOf = new Map<string, ReadonlySet<string>>();
  input.rows.forEach((row, i) => {
    const t = tables[i]!;
    if (systemOf.has(t)) return;
    const tpl = input.templateOf(row.table);
    systemOf.set(t, input.fixedColumnsOf(t) ?? new Set(tpl?.systemColumns.map(([c]) => c) ?? []));
  });
  const reservedOf = (table: string): ReadonlySet<string> => systemOf.get(table) ?? new Set();
  const columnOf = new Map<string, Map<string, string>>();
  const newSources = new Map<string, Map<string, string>>();
  /** Whether a field of a new source holds a value (a NULL one creates no column). */
  let newValues = false;
  input.rows.forEach((row, i) => {
    const t = tables[i]!;
    const known = state.sources.get(t);
    for (const [candidate, value, source = candidate] of row.fields) {
      if (known?.has(source)) continue;
      const m = mapOf(newSources, t);
      if (!m.has(source)) m.set(source, candidate);
      if (value !== null && value !== undefined) newValues = true;
    }
  });
  const taken = new Map<string, Set<string>>();
  const isTaken = (t: string, n: string) =>
    taken.get(t)?.has(n) || ((reg.get(t)?.has(n) ?? false) && !state.legacy.get(t)?.has(n));
  const claim = (t: string, n: string) => {
    setOf(taken, t).add(n);
    // A legacy column is claimed once: the first key (in sorted order) whose name it is.
    if (state.legacy.get(t)?.delete(n)) return true;
    return false;
  };
  let named = false;
  const nameNewSources = () => {
    if (named) return;
    named = true;
    for (const t of [...newSources.keys()].sort()) {
      const m = newSources.get(t)!;
      const reserved = reservedOf(t);
      for (const source of byExactness(m)) {
        const name = nameFor(cap, {
          kind: 'column',
          candidate: m.get(source)!,
          taken: (n) => isTaken(t, n) || reserved.has(n),
          reserved,
        });
        if (claim(t, name)) adoptions.push({ table: t, column: name, source });
        mapOf(columnOf, t).set(source, name);
      }
    }
  };
  // New sources whose every value is NULL (a marketplace response's many always-null fields, which never get a
  // column) are named only when something needs their names: a legacy column to adopt, or a variant or overflow
  // column named below, whose name must avoid theirs. Otherwise their names would be thrown away (each NULL field
  // of a column that does not exist is dropped), and naming them was a tenth of a marketplace load's registry work.
  if (newValues || [...state.legacy.values()].some((s) => s.size > 0)) nameNewSources();
  /** A field's column; undefined for a NULL field of a new source not named (it would get no column). */
  const resolveColumn = (t: string, source: string): string | undefined =>
    state.sources.get(t)?.get(source) ?? columnOf.get(t)?.get(source);
  /** A variant's or the overflow's column: recorded, or named now (first come in row order). */
  const derivedColumn = (t: string, source: string, candidate: string): string => {
    if (state.sources.get(t)?.get(source) === undefined) nameNewSources();
    const known = state.sources.get(t)?.get(source) ?? columnOf.get(t)?.get(source);
    if (known !== undefined) return known;
    const reserved = reservedOf(t);
    const name = nameFor(cap, { kind: 'column', candidate, taken: (n) => isTaken(t, n) || reserved.has(n), reserved });
    if (claim(t, name)) adoptions.push({ table: t, column: name, source });
    mapOf(columnOf, t).set(source, name);
    return name;
  };

  // 3. Width: a table past its budget takes no new column; its new fields go to one JSON overflow column.
  const width = new Map<string, { columns: number; bytes: number }>();
  const widthOf = (t: string) => {
    let w = width.get(t);
    if (!w) {
      const cols = [...(reg.get(t)?.values() ?? [])];
      const fixed = input.fixedColumnsOf(t);
      // Model tables: their fixed columns count too (as text, the widest).
      w = {
        columns: cols.length + (fixed?.size ?? 0),
        bytes: cols.reduce((n, ty) => n + columnBytes(ty), 0) + (fixed?.size ?? 0) * columnBytes('text'),
      };
      width.set(t, w);
    }
    return w;
  };
  // One column of room is kept for the overflow column itself.
  const fits = (t: string, type: LogicalType) => {
    const w = widthOf(t);
    return (
      w.columns + 2 <= cap.maxColumns &&
      (cap.maxRowBytes === undefined || w.bytes + columnBytes(type) + columnBytes('json') <= cap.maxRowBytes)
    );
  };
  const grow = (t: string, type: LogicalType) => {
    const w = widthOf(t);
    w.columns += 1;
    w.bytes += columnBytes(type);
  };
  /** Planned new columns that hold an integer a double cannot (they may not widen to double). */
  const inexact = new Set<string>();

  input.rows.forEach((row, i) => {
    current = i;
    const t = tables[i]!;
    const out: Array<readonly [string, unknown]> = [];
    assigned.push(out);
    if (!reg.has(t) && input.templateOf(row.table) !== undefined && !newTables.has(t)) {
      newTables.add(t);
      const tpl = input.templateOf(row.table)!;
      for (const [column, type] of tpl.systemColumns)
        addPlanned({ table: t, column, type, change: 'create_table', source: row.tableSource });
      const w = widthOf(t);
      w.columns += tpl.systemColumns.length;
      w.bytes += tpl.systemColumns.reduce((n, [, ty]) => n + columnBytes(ty), 0);
    }
    let overflow: Record<string, unknown> | undefined;
    const toOverflow = (source: string, value: unknown) => {
      overflow ??= {};
      const path = pathOfSource(source) ?? [source];
      let at = overflow;
      path.forEach((k, j) => {
        if (j === path.length - 1) at[k] = value;
        else at = (at[k] ??= {}) as Record<string, unknown>;
      });
    };
    for (const [candidate, value, source = candidate] of row.fields) {
      const resolved = resolveColumn(t, source);
      const vt = typeOfValue(value);
      if (vt === undefined) {
        // NULL creates no column; it is written as NULL where the column exists (or is planned).
        if (resolved !== undefined && typeIn(t, resolved) !== undefined) out.push([resolved, null]);
        continue;
      }
      // A value of a new source: nameNewSources ran (newValues).
      const column = resolved!;
      const existing = reg.get(t)?.get(column);
      if (existing !== undefined && accepts(existing, vt, value)) {
        out.push([column, value]);
        continue;
      }
      const pending = planned.get(t)?.get(column);
      if (existing === undefined && pending === undefined) {
        if (!fits(t, vt)) {
          toOverflow(source, value);
          continue;
        }
        grow(t, vt);
        addPlanned({ table: t, column, type: vt, change: 'add_column', source });
        if (vt === 'bigint' && !accepts('double', vt, value)) inexact.add(`${t}\u0001${column}`);
        out.push([column, value]);
        continue;
      }
      if (existing === undefined && pending !== undefined && pending.change !== 'create_table') {
        if (accepts(pending.type, vt, value)) {
          if (vt === 'bigint' && !accepts('double', vt, value)) inexact.add(`${t}\u0001${column}`);
          out.push([column, value]);
          continue;
        }
        const w = widen(pending.type, vt, !inexact.has(`${t}\u0001${column}`));
        if (accepts(w, vt, value)) {
          widthOf(t).bytes += columnBytes(w) - columnBytes(pending.type);
          pending.type = w;
          out.push([column, value]);
          continue;
        }
      }
      // A type the column cannot hold: the value goes to the variant column of its type.
      const vsource = variantSource(source, vt);
      const variant = derivedColumn(t, vsource, variantColumn(column, vt));
      if (typeIn(t, variant) === undefined) {
        if (!fits(t, vt)) {
          toOverflow(source, value);
          continue;
        }
        grow(t, vt);
        addPlanned({ table: t, column: variant, type: vt, change: 'add_variant', variantOf: column, source: vsource });
      }
      out.push([variant, value]);
    }
    if (overflow !== undefined) {
      const column = derivedColumn(t, OVERFLOW_SOURCE, OVERFLOW_CANDIDATE);
      if (typeIn(t, column) === undefined)
        addPlanned({ table: t, column, type: 'json', change: 'add_column', source: OVERFLOW_SOURCE });
      out.push([column, overflow]);
    }
  });
  const changes = [...planned.values()].flatMap((m) => [...m.values()]);
  // Taking over a legacy name is a registry change too (recorded), brought by the batch's first row.
  if (adoptions.length > 0) changeRows.add(0);
  return { changes, newTables, assigned, tables, adoptions, changeRows: [...changeRows] };
}

/**
 * The order new keys are named in: first those spelled exactly as their candidate (`a_b` for `a_b`, so it keeps
 * its own name and `a b` gets `a_b__2`; a column recorded before source keys goes to the key it was named after),
 * then the rest, each group sorted by source key. Fixed by the keys alone, so every worker decides alike.
 */
function byExactness(candidates: ReadonlyMap<string, string>): string[] {
  const exact = (source: string): boolean => {
    const v = JSON.parse(source) as unknown;
    if (!Array.isArray(v)) return false;
    const joined = (v as unknown[]).flat().join(PATH_SEPARATOR);
    const candidate = candidates.get(source)!;
    return joined !== '' && (candidate === joined || candidate.endsWith(`${PATH_SEPARATOR}${joined}`));
  };
  const sorted = [...candidates.keys()].sort();
  return [...sorted.filter(exact), ...sorted.filter((s) => !exact(s))];
}

function contractMessage(input: EvolveInput, c: SchemaChange): string {
  const what =
    c.change === 'create_table'
      ? `new table '${c.table}'`
      : c.change === 'add_variant'
        ? `a ${c.type} value for column '${c.variantOf}' of table '${c.table}' (its type does not take it; evolve would add '${c.column}')`
        : `new column '${c.column}' (${c.type}) in table '${c.table}'`;
  return (
    `pipeline '${input.pipeline}' has schema mode freeze, and ${input.describeBatch} brings ${what}; nothing of this batch was written. ` +
    `Set schema.mode to evolve (or discard_columns) in the pipeline file to accept it, then run again`
  );
}

function lockKey(table: string): bigint {
  const digest = hexDigest('sha1', `schema\u0002${table}`);
  return BigInt.asIntN(64, BigInt(`0x${digest.slice(0, 16)}`));
}

function sourceOf(source: string | undefined): unknown {
  if (source === undefined) return undefined;
  try {
    return JSON.parse(source) as unknown;
  } catch {
    return undefined;
  }
}

/** The comments of the tables a batch created and of every column it added (db/model/schema/comments.ts). */
function evolvedComments(
  input: EvolveInput,
  changes: readonly SchemaChange[],
  newTables: ReadonlySet<string>,
): Comment[] {
  const out: Comment[] = [];
  const childSystem = new Set(CHILD_SYSTEM_COLUMNS.map(([c]) => c));
  for (const c of changes) {
    if (c.change === 'create_table') {
      if (newTables.has(c.table) && !out.some((x) => x.table === c.table && x.column === undefined)) {
        out.push({ table: c.table, comment: contentTableComment(input.pipeline, sourceOf(c.source)) });
      }
      const isChild = c.table !== input.rootTable && childSystem.has(c.column) && c.column !== 'row_hash';
      const system = (isChild ? CONTENT_CHILD_DOCS : CONTENT_ROOT_DOCS)[c.column];
      if (system !== undefined) out.push({ table: c.table, column: c.column, comment: system });
      continue;
    }
    out.push({
      table: c.table,
      column: c.column,
      comment: evolvedColumnComment({
        column: c.column,
        type: c.type,
        change: c.change,
        variantOf: c.variantOf,
        key: sourceOf(c.source),
      }),
    });
  }
  return out;
}

async function applyChanges(
  tx: Tx,
  input: EvolveInput,
  cap: NameCapability,
  reg: Registry,
  changes: readonly SchemaChange[],
  newTables: ReadonlySet<string>,
  adoptions: readonly Adoption[],
  templates: ReadonlyMap<string, TableTemplate>,
): Promise<void> {
  const ifNotExists = tx.adapter.capabilities.addColumnIfNotExists ? ' IF NOT EXISTS' : '';
  // A new table is created with all its columns in one statement: a thousand ALTER TABLEs of a table created in
  // the same transaction cost DuckDB gigabytes (issue 30).
  for (const table of newTables) {
    const tpl = templates.get(table)!;
    const cols = tpl.systemColumns.map(
      ([c, t]) =>
        `${quoteIdent(c)} ${sqlTypeOf(t, tx.adapter.sql.columnTypes)}${tpl.key.includes(c) ? ' NOT NULL' : ''}`,
    );
    for (const c of changes)
      if (c.table === table && c.change !== 'create_table')
        cols.push(`${quoteIdent(c.column)} ${sqlTypeOf(c.type, tx.adapter.sql.columnTypes)}`);
    await tx.run(
      `CREATE TABLE IF NOT EXISTS ${quoteIdent(table)} (${cols.join(', ')}, PRIMARY KEY (${tpl.key.map(quoteIdent).join(', ')}))`,
      [],
    );
    await tx.run(
      `CREATE INDEX IF NOT EXISTS ${quoteIdent(indexNameFor(cap, table, tpl.index))} ON ${quoteIdent(table)} (${tpl.index.map(quoteIdent).join(', ')})`,
      [],
    );
  }
  for (const c of changes) {
    if (c.change === 'create_table' || newTables.has(c.table)) continue;
    await tx.run(
      `ALTER TABLE ${quoteIdent(c.table)} ADD COLUMN${ifNotExists} ${quoteIdent(c.column)} ${sqlTypeOf(c.type, tx.adapter.sql.columnTypes)}`,
      [],
    );
  }
  // History rows in multi-row statements (a wide first batch records a thousand columns).
  const PER = 50;
  for (let i = 0; i < changes.length; i += PER) {
    const part = changes.slice(i, i + PER);
    const params: Param[] = [];
    const tuples = part.map((c) => {
      params.push(
        c.table,
        c.column,
        c.type,
        c.change,
        c.variantOf ?? null,
        input.pipeline,
        input.loadId,
        input.changedAt,
        c.source ?? null,
        input.rootTable ?? null,
      );
      const base = params.length - 10;
      return `(${Array.from({ length: 10 }, (_, j) => tx.ph(base + j + 1)).join(', ')})`;
    });
    await tx.run(
      `INSERT INTO schema_history (table_name, column_name, data_type, change, variant_of, pipeline, load_id, changed_at, source_key, root_table) ` +
        `VALUES ${tuples.join(', ')} ON CONFLICT (table_name, column_name) DO NOTHING`,
      params,
    );
  }
  // What each new table and column holds, where `dbt docs`, psql's \d+ and the console read it.
  for (const sql of commentStatements(evolvedComments(input, changes, newTables), tx.adapter.capabilities.commentOn))
    await tx.run(sql, []);
  for (const c of changes) {
    let cols = reg.get(c.table);
    if (!cols) reg.set(c.table, (cols = new Map()));
    cols.set(c.column, c.type);
  }
  for (const a of adoptions) {
    if (a.column === null) {
      await tx.run(
        `UPDATE schema_history SET source_key = ${tx.ph(1)} WHERE table_name = ${tx.ph(2)} AND change = 'create_table' AND source_key IS NULL`,
        [a.source, a.table],
      );
    } else {
      await tx.run(
        `UPDATE schema_history SET source_key = ${tx.ph(1)} WHERE table_name = ${tx.ph(2)} AND column_name = ${tx.ph(3)} AND source_key IS NULL`,
        [a.source, a.table, a.column],
      );
    }
    // The table is this root's from now on, for every reader (schema show, the registry's root scope).
    if (input.rootTable !== undefined) {
      await tx.run(
        `UPDATE schema_history SET root_table = ${tx.ph(1)} WHERE table_name = ${tx.ph(2)} AND root_table IS NULL`,
        [input.rootTable, a.table],
      );
    }
  }
}

/**
 * Brings the tables of a batch up to its rows (or refuses, per the contract) and resolves every row to its table
 * and every field to its column and bound parameter. Must run before any other statement of the transaction
 * touches these tables.
 */
export async function evolveSchema(tx: Tx, input: EvolveInput): Promise<EvolveOutput> {
  const cap = capabilityOf(tx);
  let state = await readRegistryStateKept(tx, input.scope);
  checkOwner(input, state);
  let p = plan(input, state, cap);
  const dest = tx.adapter;
  // Concurrent writers (Postgres): one lock order for every load.
  if (dest.capabilities.concurrentWriters) {
    // Evolvers take the tables' advisory locks before any other lock on them: a load holding ROW EXCLUSIVE that
    // then waited for ACCESS EXCLUSIVE would deadlock with another doing the same.
    const evolving = new Set([...p.changes.map((c) => c.table), ...p.adoptions.map((a) => a.table)]);
    await dest.lockKeys(tx, [...evolving].map(lockKey));
    const existing = [...new Set([...p.tables, ...state.columns.keys()])].filter(
      (t) => state.columns.has(t) || input.fixedColumnsOf(t),
    );
    // One statement for all of them (a round trip each cost ~7% of a marketplace load); the locks are taken in the
    // order listed, sorted like every other load's.
    await dest.lockTablesForWrite(tx, [...new Set(existing)].sort());
    state = await readRegistryState(tx, input.scope);
    checkOwner(input, state);
    p = plan(input, state, cap);
    const unlocked = p.changes.find((c) => !evolving.has(c.table)) ?? p.adoptions.find((a) => !evolving.has(a.table));
    if (unlocked) {
      // Another load added a column to this table between the first read and the lock: start the transaction
      // over (withTransaction retries serialization failures) rather than wait for its lock while holding ours.
      throw Object.assign(new Error(`table '${unlocked.table}' changed while this load was preparing; retrying`), {
        code: '40001',
      });
    }
  }
  // A kept state (readRegistryStateKept) is shared with later transactions: the changes are recorded in a copy.
  const changing = p.changes.length > 0 || p.adoptions.length > 0;
  const reg = changing ? copyRegistry(state.columns) : state.columns;
  if (input.refuseChanges && (p.changes.length > 0 || p.adoptions.length > 0)) {
    throw new SchemaChangesRefused(
      `${input.describeBatch} changes the schema (${p.changes.length} change(s))`,
      p.changeRows,
    );
  }
  let changes = p.changes;
  const discardedRows = new Set<number>();
  let newTables = p.newTables;
  // An inferred table's first batch defines it under every mode; the contract governs what comes after.
  const firstBatch = input.scope.tables.every((t) => !reg.has(t) && input.templateOf(t) !== undefined);
  const governed = firstBatch ? [] : changes;
  if (governed.length > 0 && input.mode === 'freeze')
    throw new SchemaContractError(contractMessage(input, governed[0]!));
  if (governed.length > 0 && input.mode === 'discard_columns') {
    const dropped = new Set(governed.map((c) => `${c.table}\u0001${c.column}`));
    const droppedTables = new Set(governed.filter((c) => c.change === 'create_table').map((c) => c.table));
    input.rows.forEach((_, i) => {
      const t = p.tables[i]!;
      if (droppedTables.has(t)) discardedRows.add(i);
      p.assigned[i] = p.assigned[i]!.filter(([col]) => !dropped.has(`${t}\u0001${col}`));
    });
    changes = changes.filter((c) => !dropped.has(`${c.table}\u0001${c.column}`));
    newTables = new Set([...newTables].filter((t) => !droppedTables.has(t)));
  }
  // The template of each new table, found by the row that brought it (a child table's name may be any name).
  const templates = new Map<string, TableTemplate>();
  input.rows.forEach((row, i) => {
    const t = p.tables[i]!;
    if (newTables.has(t) && !templates.has(t)) templates.set(t, input.templateOf(row.table)!);
  });
  if (changes.length > 0 || p.adoptions.length > 0) changedIn.add(tx);
  await applyChanges(tx, input, cap, reg, changes, newTables, p.adoptions, templates);
  const resolved = p.assigned.map((fields, i) =>
    fields.map(([col, value]) => [col, toParam(reg.get(p.tables[i]!)!.get(col)!, value)] as const),
  );
  return { registry: reg, tables: p.tables, resolved, created: newTables, changes, discardedRows };
}

/** A content root created by another pipeline (two names that give one table name) is not written into. */
function checkOwner(input: EvolveInput, state: RegistryState): void {
  const root = input.rootTable;
  if (root === undefined) return;
  const owner = state.owners.get(root);
  if (owner !== undefined && owner !== input.pipeline) {
    throw new TableOwnerError(
      `pipeline '${input.pipeline}' would write its content into table '${root}', which pipeline '${owner}' created: the two names give the same ` +
        `table name (names are compared in snake_case). Rename one of the pipelines (its name: field) and run again; nothing of this batch was written`,
    );
  }
}

// ---- reading the history (schema show) ------------------------------------------------------------------

// In db/store/evolve/history.ts, which `schema show` loads without the rest of this module.
export { selectSchemaHistory, type SchemaColumn } from './history.js';

/** The inferred tables of a pipeline and the inferred columns its loads added to model tables, with history. */
export async function listSchemaHistory(db: Database, pipeline: string, contentTable: string): Promise<SchemaColumn[]> {
  return withTransaction(db, (tx) => selectSchemaHistory(tx, pipeline, contentTable));
}

/**
 * Columns and tables that loads of one workflow added or changed (its loads are its raw_responses). Read from the
 * registry rather than carried out of the load activities, so a retried activity that finds the change already
 * made (its first attempt committed, then the worker died) still reports it.
 */
export async function schemaChangesOfRun(db: Database, workflowId: string): Promise<SchemaColumn[]> {
  return withTransaction(db, async (tx) => {
    const rows = await tx.all(
      `${HISTORY_SELECT}
        WHERE load_id IN (SELECT id FROM raw_responses WHERE workflow_id = ${tx.ph(1)})
        ORDER BY table_name, load_id, column_name`,
      [workflowId],
    );
    return rows.map(schemaColumnOf);
  });
}
