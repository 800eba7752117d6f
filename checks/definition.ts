// What a check type and a watch type are: one definition each (checks/check-types/<type>.ts,
// checks/watch-types/<family>.ts), gathered in the registries of checks/registry.ts whose mapped types make the
// compiler name a type without an entry, as kinds/ does for kinds. A definition holds the type's schema for the
// pipeline file, its description and its evaluation. Definitions import zod and types only: the database is handed
// to them (CheckEnv, WatchEnv), so the pipeline file schema that reads the registry loads no database code.
import type { z } from 'zod';
import type { Param, Tx } from '../db/store/sql.js';
import type { CheckSpec, CheckType, PipelineKind, WatchSpec, WatchType } from '../pipelines/spec.js';

export type CheckOf<T extends CheckType> = Extract<CheckSpec, { type: T }>;
/** A check as its schema yields it from the file: the name defaults later (pipelines/checks-schema.ts). */
export type CheckFileOutput<T extends CheckType> = Omit<CheckOf<T>, 'name'> & { name?: string | undefined };

export type CheckStatus = 'pass' | 'fail' | 'error' | 'skipped';

/** What an evaluation found; checks/evaluate.ts adds the check's name, type and severity and caps the keys. */
export interface CheckOutcome {
  status: CheckStatus;
  /** As shown to people: '37.5% (15 of 40 rows)', '120 rows', '3h 2m old'. */
  observed?: string | null;
  observedValue?: number | null;
  threshold?: string | null;
  /** A sample of the failing rows' keys. */
  failingKeys?: Array<Record<string, unknown>> | null;
  message: string;
}

/** A read transaction over the destination with the queries checks share; every query reads the pipeline's rows only. */
export interface CheckTables {
  readonly tx: Tx;
  /** An identifier quoted for the destination's SQL. */
  quote(identifier: string): string;
  /** Columns of a table with their logical types; empty when the table does not exist. */
  columns(table: string): Promise<Map<string, string>>;
  /** Columns of a table, throwing when the table or one of `wanted` does not exist. */
  columnsOrThrow(table: string, wanted: readonly string[]): Promise<Map<string, string>>;
  /** Rows of the pipeline in `table` matching `where` (parameters numbered from 2) and a sample of their keys. */
  failing(
    table: string,
    cols: Map<string, string>,
    where: string,
    params: Param[],
  ): Promise<{ n: number; keys: Array<Record<string, unknown>> }>;
  /** All of the pipeline's rows in `table`. */
  totalRows(table: string): Promise<number>;
}

/** What an evaluation may read: the run it belongs to and the destination, through these functions only. */
export interface CheckEnv {
  readonly pipeline: string;
  /** The run's workflow id, or an id of its own for an evaluation without a run. */
  readonly workflowId: string;
  /** Rows the run delivered per table; undefined for an evaluation without a run. */
  readonly rowsLoaded: Record<string, number> | undefined;
  readonly now: Date;
  /** The most failing keys an outcome carries. */
  readonly sampleSize: number;
  read<R>(fn: (t: CheckTables) => Promise<R>): Promise<R>;
  /** A query of the pipeline file run read-only and bounded (checks/sql-readonly.ts), at most `limit` rows. */
  readOnlyQuery(sql: string, limit: number): Promise<Array<Record<string, unknown>>>;
  /** What the same check observed in the last run that succeeded before this one. */
  previousObserved(checkName: string): Promise<number | undefined>;
}

type Path = Array<string | number>;

/** What a check names in the destination, for `validate` to check before any run (pipelines/checks-schema.ts). */
export interface CheckReferences {
  /** The table the check reads; undefined: none (a `sql:` query, the freshness of runs). */
  table: string | undefined;
  /** Columns of `table` it names, each with its path under the check ('column', 'columns', 0). */
  columns: Array<{ column: string; path: Path }>;
  /** Expressions over `table`'s columns. */
  expressions: Array<{ text: string; path: Path }>;
  /** What is wrong with its values together. */
  problems: Array<{ message: string; path: Path }>;
}

export interface CheckDefinition<T extends CheckType> {
  readonly type: T;
  /** One sentence for people: the pipeline file's JSON Schema and docs/checks.md say it. */
  readonly description: string;
  /** The check's entry in the file's `checks:` list; its output must fit the check's type in pipelines/spec.ts. */
  readonly schema: z.ZodType<CheckFileOutput<T>>;
  /** The table, columns and expressions the check names, as the file gives them. */
  references(check: CheckFileOutput<T>): CheckReferences;
  evaluate(check: CheckOf<T>, env: CheckEnv): Promise<CheckOutcome>;
}

/** References of a check that names a table and nothing else to check. */
export function tableOnly(table: string | undefined): CheckReferences {
  return { table, columns: [], expressions: [], problems: [] };
}

export type WatchOf<T extends WatchType> = Extract<WatchSpec, { type: T }>;
export type WatchFileOutput<T extends WatchType> = Omit<WatchOf<T>, 'name' | 'type'> & {
  type: T;
  name?: string | undefined;
};

/** The transaction a watch's event is computed in (it also moves the watch's state), and what the watch reads. */
export interface WatchEnv {
  readonly tx: Tx;
  readonly pipeline: string;
  readonly workflowId: string;
  /** When the event is computed (ISO 8601), for the state it writes. */
  readonly at: string;
  quote(identifier: string): string;
  columns(table: string): Promise<Map<string, string>>;
  /** The columns that identify a row of `table` (present ones only). */
  rowKey(table: string, cols: ReadonlyMap<string, string>): string[];
  /** The watch's `filter` as SQL over `alias.column`, its values appended to `params`; '' without a filter. */
  filterSql(filter: string | undefined, alias: string, cols: ReadonlyMap<string, string>, params: Param[]): string;
  /** What the watch last saw of each item (item key → state). */
  readState(watch: string): Promise<Map<string, string>>;
  writeState(watch: string, changes: ReadonlyMap<string, string>): Promise<void>;
}

export interface WatchDefinition<T extends WatchType> {
  readonly type: T;
  readonly description: string;
  /** Pipeline kinds whose tables the watch reads, and what it watches (the message for another kind); absent: every kind. */
  readonly onlyKinds?: { readonly kinds: readonly PipelineKind[]; readonly watches: string };
  /** The table the watch's `filter` reads, so `validate` can check its columns. */
  filterTable(watch: WatchOf<T>): string;
  readonly schema: z.ZodType<WatchFileOutput<T>>;
  /** The rows that make this run's event (none: no event), computed once per run in one transaction. */
  rows(watch: WatchOf<T>, env: WatchEnv): Promise<Array<Record<string, unknown>>>;
}
