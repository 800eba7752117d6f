// The warehouse as an analyst sees it, in one form every `schema export` format renders (json, dbt, dbml, mermaid):
// each table a pipeline (or the project) writes with its columns, types, descriptions, natural key, lineage columns,
// relations to parent tables and closed value sets, and each pipeline's freshness from its schedule. Built from the
// one table definition (definition.ts), its descriptions (descriptions.ts) and the schema registry (schema_history
// rows, read by the caller), so nothing here is written twice.
import { CronExpressionParser } from 'cron-parser';
import { TABLES, type AnyTableDef, type ColumnType } from './definition.js';
import type { ColumnTypeNames } from '../../../destinations/contract.js';
import {
  CONTENT_CHILD_DOCS,
  CONTENT_ROOT_DOCS,
  LINEAGE_COLUMNS,
  TABLE_DOCS,
  VIEW_DOCS,
  type AcceptedValuesDoc,
  type RelationDoc,
  type TableDoc,
} from './descriptions.js';
import { evolvedColumnComment } from './comments.js';
import type { SchemaColumn } from '../evolve/schema-column.js';
import type { LogicalType } from '../evolve/types.js';
import { CHILD_SYSTEM_COLUMNS, ROOT_SYSTEM_COLUMNS } from '../flatten/content.js';

export interface CatalogColumn {
  name: string;
  /** The model's neutral type (int64, text, json, timestamp, …), or an inferred column's logical type. */
  type: string;
  /** The SQL type on the destination read. */
  sqlType: string;
  description: string;
  notNull: boolean;
  naturalKey: boolean;
  lineage: boolean;
  /** Added by schema evolution (schema_history), not in the model's definition. */
  evolved: boolean;
}

export interface CatalogTable {
  name: string;
  /** model: a fixed table of the definition; inferred: created by loads (<pipeline>_items …); view: a view. */
  kind: 'model' | 'inferred' | 'view';
  description: string;
  columns: CatalogColumn[];
  naturalKey: string[];
  lineageColumns: string[];
  relations: RelationDoc[];
  acceptedValues: Record<string, AcceptedValuesDoc>;
  /** The pipelines whose rows it holds (of those exported). */
  pipelines: string[];
}

export interface PipelineFreshness {
  pipeline: string;
  /** The schedule's cron and zone, as the pipeline file says. */
  cron: string;
  timezone: string;
  /** The longest gap between two fires of the schedule, in minutes. */
  intervalMinutes: number;
  warnAfterMinutes: number;
  errorAfterMinutes: number;
}

export interface Catalog {
  /** The pipelines exported (one for `schema export <pipeline>`, every one of the project otherwise). */
  pipelines: string[];
  tables: CatalogTable[];
  freshness: PipelineFreshness[];
}

/** What the catalog needs of a pipeline: its name, the model tables its kind writes, its content root, its schedule. */
export interface CatalogPipeline {
  name: string;
  modelTables: readonly string[];
  /** `<pipeline>_items`, for kinds that flatten result content. */
  contentTable?: string;
  schedule?: { cron: string; timezone: string; paused: boolean };
}

/** Tables every pipeline's runs write (besides its kind's): the runs themselves and the responses as received. */
const RUN_TABLES = ['pipeline_runs', 'raw_responses'] as const;
const RESULT_TABLES = new Set(['pdf_results', 'leads_results', 'scraper_results']);

function modelTable(
  name: string,
  columnTypes: ColumnTypeNames,
  pipelines: string[],
  evolved: SchemaColumn[],
): CatalogTable {
  const def = (TABLES as unknown as Record<string, AnyTableDef>)[name]!;
  const doc = (TABLE_DOCS as unknown as Record<string, TableDoc>)[name]!;
  const identity = Object.entries(def.columns).find(([, c]) => c.identity)?.[0];
  const naturalKey = [...(def.primaryKey ?? (identity ? [identity] : []))];
  // Lineage is what data rows carry (all four columns); a control table's `pipeline` alone is not.
  const lineage: string[] = LINEAGE_COLUMNS.every((c) => c in def.columns) ? [...LINEAGE_COLUMNS] : [];
  const columns: CatalogColumn[] = Object.entries(def.columns).map(([column, c]) => ({
    name: column,
    type: c.type,
    sqlType: columnTypes[c.type],
    description: (doc.columns as Record<string, string>)[column]!,
    notNull: c.notNull === true,
    naturalKey: naturalKey.includes(column),
    lineage: lineage.includes(column),
    evolved: false,
  }));
  for (const c of evolved) {
    if (c.change === 'create_table' || columns.some((x) => x.name === c.column)) continue;
    columns.push(evolvedColumn(c, columnTypes));
  }
  return {
    name,
    kind: 'model',
    description: doc.description,
    columns,
    naturalKey,
    lineageColumns: lineage,
    relations: [...(doc.relations ?? [])],
    acceptedValues: { ...(doc.acceptedValues as Record<string, AcceptedValuesDoc> | undefined) },
    pipelines,
  };
}

function evolvedColumn(c: SchemaColumn, columnTypes: ColumnTypeNames): CatalogColumn {
  return {
    name: c.column,
    type: c.type,
    sqlType: sqlTypeOfLogical(c.type, columnTypes),
    description: evolvedColumnComment({
      column: c.column,
      type: c.type,
      change: c.change,
      variantOf: c.variantOf,
      key: c.key,
    }),
    notNull: false,
    naturalKey: false,
    lineage: false,
    evolved: true,
  };
}

/** The SQL of a logical type (db/model/evolve/types.ts's mapping, without its value-typing imports). */
const NEUTRAL_OF_LOGICAL: Readonly<Record<LogicalType, ColumnType>> = {
  bigint: 'int64',
  double: 'double',
  bool: 'bool',
  text: 'text',
  timestamp: 'timestamp',
  json: 'json',
  number_text: 'text',
};
function sqlTypeOfLogical(type: string, columnTypes: ColumnTypeNames): string {
  const neutral = NEUTRAL_OF_LOGICAL[type as LogicalType];
  return neutral ? columnTypes[neutral] : type;
}

/** An inferred content table from its schema_history rows: system columns first, then content columns in load order. */
function inferredTable(
  name: string,
  rows: SchemaColumn[],
  all: SchemaColumn[],
  root: string,
  columnTypes: ColumnTypeNames,
  pipeline: string,
): CatalogTable {
  const isRoot = name === root;
  const system = isRoot ? ROOT_SYSTEM_COLUMNS : CHILD_SYSTEM_COLUMNS;
  const systemDocs = isRoot ? CONTENT_ROOT_DOCS : CONTENT_CHILD_DOCS;
  const naturalKey = ['pipeline', 'row_key'];
  const columns: CatalogColumn[] = system.map(([column, type]) => ({
    name: column,
    type,
    sqlType: sqlTypeOfLogical(type, columnTypes),
    description: systemDocs[column] ?? '',
    notNull: naturalKey.includes(column),
    naturalKey: naturalKey.includes(column),
    lineage: (LINEAGE_COLUMNS as readonly string[]).includes(column),
    evolved: true,
  }));
  for (const c of rows) {
    if (columns.some((x) => x.name === c.column)) continue;
    columns.push(evolvedColumn(c, columnTypes));
  }
  const relations: RelationDoc[] = [];
  if (!isRoot) {
    const path = listPathOf(rows);
    const parent =
      path.length <= 1
        ? root
        : all.find(
            (c) =>
              c.change === 'create_table' &&
              c.column === 'row_key' &&
              sameList(listPathOf([c]), path.slice(0, -1)) &&
              rootOf(c, root),
          )?.table;
    relations.push({
      parent: root,
      columns: ['pipeline', 'root_key'],
      parentColumns: ['pipeline', 'row_key'],
      note: 'the root row the list belongs to',
    });
    if (parent !== undefined && parent !== root)
      relations.push({
        parent,
        columns: ['pipeline', 'parent_key'],
        parentColumns: ['pipeline', 'row_key'],
        note: 'the row one level up',
      });
    else
      relations.push({
        parent: root,
        columns: ['pipeline', 'parent_key'],
        parentColumns: ['pipeline', 'row_key'],
        note: 'the row holding the list',
      });
  }
  const listText = isRoot
    ? ''
    : ` One row per element of the list ${listPathOf(rows)
        .map((p) => p.join('.'))
        .join(' > ')}.`;
  return {
    name,
    kind: 'inferred',
    description: isRoot
      ? `Result content of pipeline ${pipeline}, flattened: one row per result (or per merge key value), columns inferred from the content's keys (schema_history).`
      : `A nested list in the result content of pipeline ${pipeline}.${listText}`,
    columns,
    naturalKey,
    lineageColumns: columns.filter((c) => c.lineage).map((c) => c.name),
    relations,
    acceptedValues: {},
    pipelines: [pipeline],
  };
}

function listPathOf(rows: SchemaColumn[]): string[][] {
  const created = rows.find((c) => c.change === 'create_table');
  return Array.isArray(created?.key) ? (created.key as string[][]) : [];
}
const sameList = (a: string[][], b: string[][]) => JSON.stringify(a) === JSON.stringify(b);
const rootOf = (c: SchemaColumn, root: string) => c.table === root || c.table.startsWith(`${root}__`);

function viewTable(
  name: keyof typeof VIEW_DOCS & string,
  pipelines: string[],
  columnTypes: ColumnTypeNames,
): CatalogTable {
  const doc = VIEW_DOCS[name]!;
  const types: Record<string, ColumnType> = {
    last_seen_at: 'timestamp',
    created_at: 'timestamp',
    loaded_runs: 'int64',
    id: 'int64',
    scraping_run_id: 'int64',
    is_copy: 'bool',
  };
  return {
    name,
    kind: 'view',
    description: doc.description,
    columns: Object.entries(doc.columns).map(([column, description]) => {
      const type = types[column] ?? 'text';
      return {
        name: column,
        type,
        sqlType: columnTypes[type],
        description,
        notNull: false,
        naturalKey: false,
        lineage: false,
        evolved: false,
      };
    }),
    naturalKey: name === 'pipeline_freshness' ? ['pipeline'] : ['result_table', 'pipeline', 'id'],
    lineageColumns: [],
    relations: [],
    acceptedValues:
      name === 'results_landed' ? { result_table: { values: [...RESULT_TABLES].sort(), source: 'ours' } } : {},
    pipelines,
  };
}

/**
 * The longest gap between consecutive fires of a cron schedule over its next fires (a weekday schedule's weekend
 * included), in minutes: how stale its data may be when the schedule runs as it should.
 */
export function scheduleIntervalMinutes(
  cron: string,
  timezone: string,
  from = new Date('2026-01-05T00:00:00Z'),
): number {
  const it = CronExpressionParser.parse(cron, { tz: timezone, currentDate: from });
  let prev = it.next().getTime();
  let longest = 0;
  for (let i = 0; i < 60; i++) {
    const next = it.next().getTime();
    longest = Math.max(longest, next - prev);
    prev = next;
  }
  return Math.round(longest / 60_000);
}

/** warn after the longest gap plus a grace of a twelfth of it (at least an hour: a run takes time); error after twice that. */
export function freshnessOf(p: CatalogPipeline): PipelineFreshness | undefined {
  if (!p.schedule || p.schedule.paused) return undefined;
  const interval = scheduleIntervalMinutes(p.schedule.cron, p.schedule.timezone);
  const warn = interval + Math.max(60, Math.ceil(interval / 12));
  return {
    pipeline: p.name,
    cron: p.schedule.cron,
    timezone: p.schedule.timezone,
    intervalMinutes: interval,
    warnAfterMinutes: warn,
    errorAfterMinutes: 2 * warn,
  };
}

/**
 * The catalog of the pipelines given, from the schema registry rows of their tables (selectSchemaHistory's, per
 * pipeline). Tables come in a stable order: run tables, views, model tables in definition order, inferred tables.
 */
export function buildCatalog(
  pipelines: readonly CatalogPipeline[],
  history: ReadonlyMap<string, SchemaColumn[]>,
  columnTypes: ColumnTypeNames,
): Catalog {
  const users = new Map<string, string[]>();
  const use = (table: string, pipeline: string) => {
    const list = users.get(table) ?? [];
    if (!list.includes(pipeline)) list.push(pipeline);
    users.set(table, list);
  };
  for (const p of pipelines) {
    for (const t of RUN_TABLES) use(t, p.name);
    for (const t of p.modelTables) use(t, p.name);
  }
  const evolvedOf = (table: string) => [...history.values()].flat().filter((c) => c.table === table);
  const tables: CatalogTable[] = [];
  for (const name of Object.keys(TABLES)) {
    const list = users.get(name);
    if (list) tables.push(modelTable(name, columnTypes, list, evolvedOf(name)));
  }
  const names = pipelines.map((p) => p.name);
  tables.push(viewTable('pipeline_freshness', names, columnTypes));
  if (pipelines.some((p) => p.modelTables.some((t) => RESULT_TABLES.has(t))))
    tables.push(viewTable('results_landed', names, columnTypes));
  for (const p of pipelines) {
    if (p.contentTable === undefined) continue;
    const rows = (history.get(p.name) ?? []).filter((c) => rootOf(c, p.contentTable!));
    const byTable = new Map<string, SchemaColumn[]>();
    for (const c of rows) byTable.set(c.table, [...(byTable.get(c.table) ?? []), c]);
    for (const [name, cols] of [...byTable].sort(([a], [b]) =>
      a === p.contentTable ? -1 : b === p.contentTable ? 1 : a.localeCompare(b),
    )) {
      tables.push(inferredTable(name, cols, rows, p.contentTable, columnTypes, p.name));
    }
  }
  // A relation to a table outside the export (scrapers for a results sync) is not one this export can state.
  const present = new Set(tables.map((t) => t.name));
  for (const t of tables) t.relations = t.relations.filter((r) => present.has(r.parent));
  return {
    pipelines: names,
    tables,
    freshness: pipelines.map(freshnessOf).filter((f): f is PipelineFreshness => f !== undefined),
  };
}

/**
 * One table as the catalog describes it for a pipeline (the console's table pages, `schema show`): a model table of the
 * definition, a view, or one the pipeline's loads inferred (its schema_history rows), with the same descriptions,
 * natural key and lineage `schema export` and the database's comments carry. undefined: a table the catalog does not
 * know for this pipeline.
 */
export function catalogTableOf(
  pipeline: string,
  table: string,
  history: SchemaColumn[],
  columnTypes: ColumnTypeNames,
  contentTable: string,
): CatalogTable | undefined {
  const modelTables = table in TABLES ? [table] : [];
  const catalog = buildCatalog(
    [{ name: pipeline, modelTables, contentTable }],
    new Map([[pipeline, history]]),
    columnTypes,
  );
  return catalog.tables.find((t) => t.name === table);
}
