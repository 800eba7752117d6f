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
import { hexDigest } from '../hash.js';
import type { Database } from '../connect.js';
import { lockAdvisory, quoteIdent, withTransaction, type Param, type Tx } from '../sql.js';
import { SchemaContractError } from './errors.js';
import { fitIdentifier, PATH_SEPARATOR, variantColumn } from './names.js';
import { accepts, sqlTypeOf, toParam, typeOfValue, widen, type LogicalType } from './types.js';
import type { Field } from '../flatten/values.js';

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
}

/** How a table that does not exist yet is created: its system columns, key and index. */
export interface TableTemplate {
  systemColumns: ReadonlyArray<readonly [string, LogicalType]>;
  key: readonly string[];
  /** Columns of its one secondary index. */
  index: readonly string[];
}

/** The tables a batch touches: exact names, and name prefixes (a content table's children). */
export interface RegistryScope {
  tables: readonly string[];
  prefixes: readonly string[];
}

export async function readRegistry(tx: Tx, scope: RegistryScope): Promise<Registry> {
  const reg: Registry = new Map();
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
  if (conds.length === 0) return reg;
  const rows = await tx.all(`SELECT table_name, column_name, data_type FROM schema_history WHERE ${conds.join(' OR ')} ORDER BY table_name, column_name`, params);
  for (const r of rows) {
    const t = String(r['table_name']);
    let cols = reg.get(t);
    if (!cols) reg.set(t, (cols = new Map()));
    cols.set(String(r['column_name']), String(r['data_type']) as LogicalType);
  }
  return reg;
}

export interface EvolveInput {
  pipeline: string;
  mode: SchemaMode;
  scope: RegistryScope;
  /** Rows whose fields need columns, each with its table. */
  rows: ReadonlyArray<{ table: string; fields: readonly Field[] }>;
  /** Template of each table that may be created (inferred tables); undefined for fixed model tables. */
  templateOf(table: string): TableTemplate | undefined;
  /** Fixed columns of a model table, which inferred columns never take (undefined for inferred tables). */
  fixedColumnsOf(table: string): ReadonlySet<string> | undefined;
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

export interface EvolveOutput {
  registry: Registry;
  /** Per input row (same order): [column, parameter] of each non-null field kept. */
  resolved: Array<Array<readonly [string, Param]>>;
  /** Tables created by this batch (their rows carry no earlier children to replace). */
  created: Set<string>;
  changes: SchemaChange[];
  /** Rows dropped because their table was new and the mode discards new structure. */
  discardedRows: Set<number>;
}

/** Maps every field to a column, planning what is missing; pure given the registry. */
function plan(input: EvolveInput, reg: Registry) {
  const planned = new Map<string, Map<string, SchemaChange>>();
  const newTables = new Set<string>();
  const assigned: Array<Array<readonly [string, unknown]>> = [];
  const changeRows = new Set<number>();
  let current = 0;
  const typeIn = (table: string, column: string): LogicalType | undefined => reg.get(table)?.get(column) ?? planned.get(table)?.get(column)?.type;
  const addPlanned = (c: SchemaChange) => {
    let m = planned.get(c.table);
    if (!m) planned.set(c.table, (m = new Map()));
    m.set(c.column, c);
    changeRows.add(current);
  };
  input.rows.forEach((row, i) => {
    current = i;
    const out: Array<readonly [string, unknown]> = [];
    assigned.push(out);
    if (!reg.has(row.table) && input.templateOf(row.table) !== undefined && !newTables.has(row.table)) {
      newTables.add(row.table);
      for (const [column, type] of input.templateOf(row.table)!.systemColumns) addPlanned({ table: row.table, column, type, change: 'create_table' });
    }
    for (const [column, value] of row.fields) {
      const vt = typeOfValue(value);
      if (vt === undefined) {
        // NULL creates no column; it is written as NULL where the column exists (or is planned).
        if (typeIn(row.table, column) !== undefined) out.push([column, null]);
        continue;
      }
      const existing = reg.get(row.table)?.get(column);
      if (existing !== undefined && accepts(existing, vt)) {
        out.push([column, value]);
        continue;
      }
      const pending = planned.get(row.table)?.get(column);
      if (existing === undefined && pending === undefined) {
        addPlanned({ table: row.table, column, type: vt, change: 'add_column' });
        out.push([column, value]);
        continue;
      }
      if (existing === undefined && pending !== undefined && pending.change !== 'create_table') {
        const w = widen(pending.type, vt);
        if (accepts(w, vt)) {
          pending.type = w;
          out.push([column, value]);
          continue;
        }
      }
      // A type the column cannot hold: the value goes to the variant column of its type.
      const variant = variantColumn(column, vt);
      if (typeIn(row.table, variant) === undefined) addPlanned({ table: row.table, column: variant, type: vt, change: 'add_variant', variantOf: column });
      out.push([variant, value]);
    }
  });
  const changes = [...planned.values()].flatMap((m) => [...m.values()]);
  return { changes, newTables, assigned, changeRows: [...changeRows] };
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

async function applyChanges(tx: Tx, input: EvolveInput, reg: Registry, changes: readonly SchemaChange[], newTables: ReadonlySet<string>): Promise<void> {
  const ifNotExists = tx.dialect === 'sqlite' ? '' : ' IF NOT EXISTS';
  for (const table of newTables) {
    const tpl = input.templateOf(table)!;
    const cols = tpl.systemColumns.map(([c, t]) => `${quoteIdent(c)} ${sqlTypeOf(t, tx.dialect)}${tpl.key.includes(c) ? ' NOT NULL' : ''}`);
    await tx.run(`CREATE TABLE IF NOT EXISTS ${quoteIdent(table)} (${cols.join(', ')}, PRIMARY KEY (${tpl.key.map(quoteIdent).join(', ')}))`, []);
    const indexName = fitIdentifier(`${table}_${tpl.index.join('_')}_idx`);
    await tx.run(`CREATE INDEX IF NOT EXISTS ${quoteIdent(indexName)} ON ${quoteIdent(table)} (${tpl.index.map(quoteIdent).join(', ')})`, []);
  }
  for (const c of changes) {
    if (c.change === 'create_table') continue;
    await tx.run(`ALTER TABLE ${quoteIdent(c.table)} ADD COLUMN${ifNotExists} ${quoteIdent(c.column)} ${sqlTypeOf(c.type, tx.dialect)}`, []);
  }
  for (const c of changes) {
    await tx.run(
      `INSERT INTO schema_history (table_name, column_name, data_type, change, variant_of, pipeline, load_id, changed_at) ` +
        `VALUES (${[1, 2, 3, 4, 5, 6, 7, 8].map((n) => tx.ph(n)).join(', ')}) ON CONFLICT (table_name, column_name) DO NOTHING`,
      [c.table, c.column, c.type, c.change, c.variantOf ?? null, input.pipeline, input.loadId, input.changedAt],
    );
    let cols = reg.get(c.table);
    if (!cols) reg.set(c.table, (cols = new Map()));
    cols.set(c.column, c.type);
  }
}

/**
 * Brings the tables of a batch up to its rows (or refuses, per the contract) and resolves every field to its
 * column and bound parameter. Must run before any other statement of the transaction touches these tables.
 */
export async function evolveSchema(tx: Tx, input: EvolveInput): Promise<EvolveOutput> {
  let reg = await readRegistry(tx, input.scope);
  let p = plan(input, reg);
  if (tx.dialect === 'postgres') {
    // Evolvers take the tables' advisory locks before any other lock on them: a load holding ROW EXCLUSIVE that
    // then waited for ACCESS EXCLUSIVE would deadlock with another doing the same.
    const evolving = new Set(p.changes.map((c) => c.table));
    await lockAdvisory(tx, [...evolving].map(lockKey));
    const existing = [...new Set([...input.rows.map((x) => x.table), ...reg.keys()])].filter((t) => reg.has(t) || input.fixedColumnsOf(t));
    // One statement for all of them (a round trip each cost ~7% of a marketplace load); Postgres takes the locks
    // in the order listed, sorted like every other load's.
    const toLock = [...new Set(existing)].sort();
    if (toLock.length > 0) await tx.all(`LOCK TABLE ${toLock.map(quoteIdent).join(', ')} IN ROW EXCLUSIVE MODE`, []);
    reg = await readRegistry(tx, input.scope);
    p = plan(input, reg);
    const unlocked = p.changes.find((c) => !evolving.has(c.table));
    if (unlocked) {
      // Another load added a column to this table between the first read and the lock: start the transaction
      // over (withTransaction retries serialization failures) rather than wait for its lock while holding ours.
      throw Object.assign(new Error(`table '${unlocked.table}' changed while this load was preparing; retrying`), { code: '40001' });
    }
  }
  if (input.refuseChanges && p.changes.length > 0) {
    throw new SchemaChangesRefused(`${input.describeBatch} changes the schema (${p.changes.length} change(s))`, p.changeRows);
  }
  let changes = p.changes;
  const discardedRows = new Set<number>();
  let newTables = p.newTables;
  // An inferred table's first batch defines it under every mode; the contract governs what comes after.
  const firstBatch = input.scope.tables.every((t) => !reg.has(t) && input.templateOf(t) !== undefined);
  const governed = firstBatch ? [] : changes;
  if (governed.length > 0 && input.mode === 'freeze') throw new SchemaContractError(contractMessage(input, governed[0]!));
  if (governed.length > 0 && input.mode === 'discard_columns') {
    const dropped = new Set(governed.map((c) => `${c.table}\u0001${c.column}`));
    const droppedTables = new Set(governed.filter((c) => c.change === 'create_table').map((c) => c.table));
    input.rows.forEach((row, i) => {
      if (droppedTables.has(row.table)) discardedRows.add(i);
      p.assigned[i] = p.assigned[i]!.filter(([col]) => !dropped.has(`${row.table}\u0001${col}`));
    });
    changes = changes.filter((c) => !dropped.has(`${c.table}\u0001${c.column}`));
    newTables = new Set([...newTables].filter((t) => !droppedTables.has(t)));
  }
  await applyChanges(tx, input, reg, changes, newTables);
  const resolved = p.assigned.map((fields, i) =>
    fields.map(([col, value]) => [col, toParam(reg.get(input.rows[i]!.table)!.get(col)!, value)] as const),
  );
  return { registry: reg, resolved, created: newTables, changes, discardedRows };
}

// ---- reading the history (schema show) ------------------------------------------------------------------

export interface SchemaColumn {
  table: string;
  column: string;
  type: string;
  change: string;
  variantOf: string | null;
  pipeline: string;
  loadId: number;
  changedAt: string;
}

const HISTORY_SELECT = 'SELECT table_name, column_name, data_type, change, variant_of, pipeline, load_id, changed_at FROM schema_history';

/** The inferred tables of a pipeline and the inferred columns its loads added to model tables, with history. */
export async function listSchemaHistory(db: Database, pipeline: string, contentTable: string): Promise<SchemaColumn[]> {
  return withTransaction(db, (tx) => selectSchemaHistory(tx, pipeline, contentTable));
}

/** listSchemaHistory inside a transaction of the caller's, or on a read-only connection (db/read-only.ts). */
export async function selectSchemaHistory(tx: Pick<Tx, 'ph' | 'all'>, pipeline: string, contentTable: string): Promise<SchemaColumn[]> {
  const rows = await tx.all(
    `${HISTORY_SELECT}
      WHERE pipeline = ${tx.ph(1)} OR table_name = ${tx.ph(2)} OR substr(table_name, 1, ${tx.ph(3)}) = ${tx.ph(4)}
      ORDER BY table_name, load_id, column_name`,
    [pipeline, contentTable, `${contentTable}${PATH_SEPARATOR}`.length, `${contentTable}${PATH_SEPARATOR}`],
  );
  return rows.map(schemaColumnOf);
}

function schemaColumnOf(r: Record<string, unknown>): SchemaColumn {
  return {
    table: String(r['table_name']),
    column: String(r['column_name']),
    type: String(r['data_type']),
    change: String(r['change']),
    variantOf: r['variant_of'] === null ? null : String(r['variant_of']),
    pipeline: String(r['pipeline']),
    loadId: Number(r['load_id']),
    changedAt: r['changed_at'] instanceof Date ? r['changed_at'].toISOString() : String(r['changed_at']),
  };
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
