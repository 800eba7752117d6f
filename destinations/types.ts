// What a destination database is to the rest of the product: one DestinationAdapter per name (destinations/<name>/),
// collected in the registry of destinations/index.ts, whose mapped type makes the compiler name every member a new
// destination must fill in. Everything that differs between SQLite, Postgres and DuckDB is a member here or one of
// its capabilities; code outside destinations/ asks the adapter (or a capability) instead of comparing names
// (test/fast/meta/no-dialect-branches.test.ts keeps it so).
import type { Database, OpenDatabaseOptions, ParsedDatabaseUrl, ProbeDatabaseOptions } from '../db/connect.js';
import type { LoadBatchesResult, LoadAttempt } from '../db/load.js';
import type { LoadBatchResult, PreparedBatch } from '../db/load-rows.js';
import type { Param, Tx } from '../db/sql.js';
import type { UpsertTarget } from '../db/upsert.js';
import type { ColumnKind } from '../export/columns.js';
import type { ExportDatabase } from '../export/database.js';
import type { RawRow, TableQuery } from '../export/rows.js';
import type { ReadOnlySource } from '../console/source.js';

export type DestinationName = 'sqlite' | 'postgres' | 'duckdb';
/** Every destination name, in the order messages list them. */
export const DESTINATION_NAMES = ['sqlite', 'duckdb', 'postgres'] as const satisfies readonly DestinationName[];
// A name added to DestinationName but not listed above is an error here, naming it.
type Unlisted = Exclude<DestinationName, (typeof DESTINATION_NAMES)[number]>;
export const DESTINATION_NAMES_COMPLETE: [Unlisted] extends [never] ? true : { missing: Unlisted } = true;

export type DatabaseOf<D extends DestinationName> = Extract<Database, { dialect: D }>;
export type ParsedUrlOf<D extends DestinationName> = Extract<ParsedDatabaseUrl, { dialect: D }>;

/**
 * What a destination can do, as dlt's destination capabilities say it. Code paths read these (naming, chunking,
 * locking, the group writer, the export's thread plan), and test/destinations/adapter-suite.ts checks each claim
 * against the real database (a claimed savepoint rolls back, an identifier of the claimed length round-trips, ...).
 */
export interface DestinationCapabilities {
  /** A database server reached over the network (else a file on this machine). */
  readonly server: boolean;
  /** SAVEPOINT / ROLLBACK TO inside a transaction (loadBatches shares one transaction between responses with them). */
  readonly savepoints: boolean;
  /** INSERT … ON CONFLICT (key) DO UPDATE … WHERE. */
  readonly onConflict: boolean;
  /**
   * How a group of responses reaches the tables: multi-row VALUES per response in savepoints, one array literal per
   * column unnested (Postgres's COPY-like path), or typed lists bound per column (DuckDB's appender-like path).
   */
  readonly bulkWrite: 'values-in-savepoints' | 'unnest-array-literals' | 'unnest-bound-lists';
  /** Bound parameters one statement may carry (multi-row VALUES are chunked within it). */
  readonly maxParams: number;
  /** Columns an inferred table may have before further fields go to its JSON overflow column (db/evolve/naming.ts). */
  readonly maxColumns: number;
  /** Longest identifier in UTF-8 bytes; longer inferred names are cut and end with a hash (db/evolve/naming.ts). */
  readonly maxIdentifierBytes: number;
  /** Bytes a row may need in the worst case (Postgres: one 8 KB heap page); undefined: no row budget. */
  readonly maxRowBytes?: number;
  /** Column names the database gives a meaning of its own (system columns): a data column never takes one. */
  readonly reservedNames: ReadonlySet<string>;
  /** One process at a time may open the file for writing (a cross-process file lock queues the others). */
  readonly oneWriterPerFile: boolean;
  /**
   * Several transactions write at once, so loads take advisory locks in one global order (db/load-locks.ts,
   * db/evolve/registry.ts); false where writers are serialised anyway (BEGIN IMMEDIATE, one writer per file).
   */
  readonly concurrentWriters: boolean;
  /** ALTER TABLE … ADD COLUMN IF NOT EXISTS. */
  readonly addColumnIfNotExists: boolean;
  /** Declared column types are the values' types (else affinities, as SQLite's: bool is 0/1, timestamps text). */
  readonly typedColumns: boolean;
  /** A statement costs a fixed price large enough that the last chunk of a multi-row write is sent at its exact size. */
  readonly exactChunks: boolean;
  /** Several threads may read one snapshot of the file (the CSV export's threads, export/csv-parallel.ts). */
  readonly parallelExportReaders: boolean;
  /**
   * COMMENT ON TABLE / COLUMN: the descriptions of tables and columns live in the database's catalog (else in the
   * rows of scrape_etl_comments, db/schema/comments.ts).
   */
  readonly commentOn: boolean;
}

/** How loadBatches writes a list of responses; the adapter chooses transactions, savepoints and group writes. */
export interface BatchWriter {
  /** Writes response `index` alone inside `tx`. */
  one(tx: Tx, index: number): Promise<LoadBatchResult>;
  /**
   * Writes the list as groups where `group` can, one by one with `one` otherwise (db/load.ts loadInGroups); a lone
   * response too when the adapter sets `loneLoadsAsLists`.
   */
  inGroups(
    one: (index: number) => Promise<LoadAttempt<LoadBatchResult>>,
    group: ((preps: PreparedBatch[]) => Promise<LoadAttempt<LoadBatchResult[]>>) | undefined,
  ): Promise<LoadBatchesResult>;
}

/** A reader of one consistent snapshot (the console's pages, checks): placeholders and queries of its destination. */
export interface CatalogReader {
  ph(n: number): string;
  all(sql: string, params?: readonly Param[]): Promise<Array<Record<string, unknown>>>;
}

/** The export's reads of one destination (export/): rows in batches, catalog types, watermarks. */
export interface ExportReader {
  /** Rows of a query (objects), integers exact (bigint, or decimal text from Postgres). */
  query(db: ExportDatabase, sql: string, params?: readonly unknown[]): Promise<Array<Record<string, unknown>>>;
  /** Streams a table query or SQL text in batches; memory holds one batch. */
  rowBatches(db: ExportDatabase, query: TableQuery | string, params: unknown[], batchSize: number): AsyncGenerator<RawRow[]>;
  /** The values the format writers receive: SQLite's own, or Postgres's text (DuckDB's are converted to it). */
  readonly valueForms: 'sqlite' | 'postgres';
  /** A catalog type as the export declares it, with its kind. */
  columnKind(catalogType: string): { declared: string; kind: ColumnKind };
  readWatermark(db: ExportDatabase, pipeline: string, table: string): Promise<bigint | null>;
  readLastExportedFile(db: ExportDatabase, pipeline: string, table: string): Promise<{ run: string; file: string; rows: number } | null>;
  advanceWatermark(db: ExportDatabase, pipeline: string, table: string, lastLoadId: bigint, written: { run: string | null; file: string | null; rows: number | null }): Promise<void>;
}

export interface DestinationAdapter<D extends DestinationName> {
  readonly name: D;
  readonly capabilities: DestinationCapabilities;
  /** How a URL of this destination is written, for messages ('sqlite:<path>'). */
  readonly urlForm: string;
  /** This destination's URL parsed, undefined when the URL is not of its scheme; throws DatabaseConfigError when it is but is malformed. */
  parseUrl(url: string): ParsedUrlOf<D> | undefined;
  /** The file a URL names (file destinations), for "does it exist yet" and messages. */
  fileOf(parsed: ParsedUrlOf<D>): string | undefined;
  /** Opens and migrates (idempotently). */
  open(parsed: ParsedUrlOf<D>, url: string, opts: OpenDatabaseOptions): Promise<DatabaseOf<D>>;
  /** Checks, creating and migrating nothing, that open would work; throws what is wrong. */
  probe(parsed: ParsedUrlOf<D>, opts: ProbeDatabaseOptions): Promise<void>;
  /** An open failure no retry fixes (not a database, no permission, wrong password). */
  isPermanentOpenError(err: unknown): boolean;
  transaction<T>(db: DatabaseOf<D>, fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** One consistent snapshot for reading only. */
  readTransaction<T>(db: DatabaseOf<D>, fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** The group-write strategy of loadBatches. */
  writeBatches(db: DatabaseOf<D>, writer: BatchWriter): Promise<LoadBatchesResult>;
  /**
   * A lone response (loadBatch's one response, or the last one a list leaves) goes through the adapter's group writer
   * as a group of one: for a destination whose statements cost more than the group writer's planning (DuckDB), that
   * is the cheaper write. Else a lone response is written by the per-response path.
   */
  readonly loneLoadsAsLists?: boolean;
  /** An upsert path of its own before the generic chunked ON CONFLICT (undefined: always the generic one). */
  upsertRows?: (
    tx: Tx,
    t: UpsertTarget,
    rows: readonly Param[][],
    chunks: (tx: Tx, t: UpsertTarget, rows: readonly Param[][]) => Promise<{ changed: number; returned: unknown[] }>,
  ) => Promise<{ changed: number; returned: unknown[] } | undefined>;
  /** Transaction-scoped locks on 64-bit keys, taken in ascending order (no-op without concurrent writers). */
  lockKeys(tx: Tx, keys: Iterable<bigint>): Promise<void>;
  /** Locks the tables a load writes against schema changes, in the order given (no-op without concurrent writers). */
  lockTablesForWrite(tx: Tx, tables: readonly string[]): Promise<void>;
  readonly sql: {
    /** `?` or `$n` (n is 1-based). */
    ph(n: number): string;
    /** `expr` cast to an integer type that holds any 64-bit id exactly, for comparisons. */
    exactInteger(expr: string): string;
    /** The text type name for CAST. */
    readonly textType: string;
    /** Which column of SQL_TYPES (db/schema/definition.ts) names this destination's types. */
    readonly typeNames: 'sqlite' | 'pg';
  };
  /** Catalog statements; each yields `name` (tables), `name, type, not_null` (columns), `name` in key order (primary key). */
  readonly catalog: {
    readonly tablesSql: string;
    columnsSql(ph1: string): string;
    primaryKeySql(ph1: string): string;
  };
  readonly exportReader: ExportReader;
  /**
   * Parquet without rows through JavaScript: DuckDB writes it itself (COPY … TO), Postgres hands DuckDB its CSV
   * (export/formats/parquet-postgres.ts). Loaded only when present and asked for.
   */
  readonly parquetCopy?: () => Promise<import('../export/formats/parquet-duckdb.js').ParquetCopy>;
  /** The bounded read-only `sql:` check (checks/sql-readonly.ts). */
  readOnlyQuery(db: DatabaseOf<D>, sql: string, o: { timeoutMs: number }): Promise<{ rows: Array<Record<string, unknown>> }>;
  /** Opens an existing destination so that the database itself refuses writes (console, report). */
  openReadOnly(parsed: ParsedUrlOf<D>, url: string): Promise<ReadOnlySource>;
  /** schema_history's columns of `tables`, read without opening for writing; undefined when that cannot be done cheaply. */
  schemaHistoryColumns(parsed: ParsedUrlOf<D>, tables: readonly string[]): Promise<Map<string, Set<string>> | undefined>;
  /**
   * For a destination one process writes at a time: why a worker of this host waits for it right now (who holds
   * it, since when), in one line, or undefined. `run` shows it while its run does not move. Read from files beside
   * the destination, without opening it.
   */
  waitNote?(parsed: ParsedUrlOf<D>): string | undefined;
}
