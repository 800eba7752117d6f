// What a destination database is to the rest of the product, as types only: the adapter interface, its
// capabilities, the statement interface (Tx, Param), the engine handles an open database carries, the read-only
// source and the export reader. It sits below its users (db/, export/, checks/, console/) and imports none of them
// (.dependency-cruiser.cjs), as dlt keeps common/destination/ below both its stages and destinations/impl/. Each
// engine implements it in destinations/<name>/; the registry (destinations/registry.ts) collects the adapters, and an
// open database, transaction, reader or export handle carries its adapter (`adapter`), so nothing below the places
// where the product is wired looks one up by name or URL. test/fast/meta/no-dialect-branches.test.ts keeps code
// outside destinations/ from comparing names.
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';

export type DestinationName = 'sqlite' | 'postgres' | 'duckdb';

// --- The engine handles: what an open database holds, per destination.

interface DatabaseBase {
  /** Its destination's adapter: what code below the registry asks, instead of looking one up by name. */
  readonly adapter: AnyAdapter;
  /** The URL it was opened with, password removed (safe to log). */
  url: string;
  close(): Promise<void>;
}
export interface SqliteDatabase extends DatabaseBase {
  dialect: 'sqlite';
  drizzle: BetterSQLite3Database<Record<string, unknown>>;
  /** The raw driver, for streaming reads (use `stmt.safeIntegers(true)` to read ids beyond 2^53 exactly). */
  sqlite: BetterSqlite3.Database;
  pool?: undefined;
}
export interface PostgresDatabase extends DatabaseBase {
  dialect: 'postgres';
  drizzle: NodePgDatabase<Record<string, unknown>>;
  sqlite?: undefined;
  /** The raw pool (int8 columns come back as decimal strings: exact). */
  pool: pg.Pool;
}
export interface DuckDatabase extends DatabaseBase {
  dialect: 'duckdb';
  /** Absolute path of the database file. */
  file: string;
  drizzle?: undefined;
  sqlite?: undefined;
  pool?: undefined;
  /** Runs `fn` with the file open (destinations/duckdb/database.ts duckSession); every read and write goes through it. */
  session<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T>;
}
export type Database = SqliteDatabase | PostgresDatabase | DuckDatabase;

export type ParsedDatabaseUrl = ParsedUrls[DestinationName];

export interface OpenDatabaseOptions {
  /** Postgres: most connections this Database holds at once. Default SCRAPE_ETL_PG_POOL_SIZE or 10. */
  poolSize?: number;
}

export interface ProbeDatabaseOptions {
  /** Postgres: how long to wait for a connection and for `SELECT 1` (default 5 s). */
  timeoutMs?: number;
}

// --- Statements: what the store's SQL runs through.

export type Param = string | number | bigint | boolean | null;

/** Statements that only read, as a transaction offers them (a Tx is one): the readers of the run-state tables take it. */
export interface QueryReader {
  readonly dialect: DestinationName;
  ph(n: number): string;
  all(sql: string, params: readonly Param[]): Promise<Array<Record<string, unknown>>>;
}

export interface Tx {
  readonly dialect: DestinationName;
  /** Its destination's adapter: what code below the registry asks, instead of looking one up by name. */
  readonly adapter: AnyAdapter;
  /** `$1`-style placeholder in Postgres and DuckDB, `?` in SQLite (n is 1-based). */
  ph(n: number): string;
  /** Runs a statement; resolves to the number of rows it inserted, updated or deleted. */
  run(sql: string, params: readonly Param[]): Promise<number>;
  /** Runs a query; integers come back as bigint (SQLite, DuckDB BIGINT) or decimal strings (Postgres int8): all exact. */
  all(sql: string, params: readonly Param[]): Promise<Array<Record<string, unknown>>>;
  /**
   * Runs `fn` inside a savepoint: when it throws, what it wrote is rolled back and the error passed on, while
   * the enclosing transaction (and what earlier savepoints wrote) stays usable. Lets several responses share
   * one transaction, its BEGIN/COMMIT and fsync, while each stays atomic on its own (db/store/load.ts loadBatches).
   * DuckDB has no savepoints: there it only runs `fn`, and loadBatches gives each response its own transaction.
   */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Destinations whose schema registry reads may be kept per connection between transactions (SQLite: other
   * processes write the same file, so a kept read is used only while `registryVersion` is unchanged; DuckDB: one
   * process holds the file, and the version counts this connection's changes). Absent (Postgres): every read goes
   * to the database (evolve/registry.ts readRegistryStateKept).
   */
  readonly registryKeeping?: RegistryKeeping;
}

export interface RegistryKeeping {
  /** What a kept read belongs to: the connection (one per process and file). */
  readonly connection: object;
  /**
   * A version of the schema_history rows matching `where` (its parameters `params`), read in this transaction:
   * equal versions mean equal rows, given that those rows change only with DDL in the same transaction or by a
   * NULL source_key / root_table being set (evolve/registry.ts applyChanges). Undefined when this transaction has
   * itself changed the schema (DDL since its BEGIN): a read then may hold uncommitted changes, and is not kept.
   */
  registryVersion(where: string, params: readonly Param[]): Promise<string | undefined>;
}

/** A multi-row write of one table (db/store/upsert.ts). */
export interface UpsertTarget {
  table: string;
  /** Columns in the order of each row's values. */
  columns: readonly string[];
  /** Conflict target (the natural key); empty: plain inserts. */
  key: readonly string[];
  /** Extra condition ANDed to `row_hash <> excluded.row_hash` for the update (e.g. newest wins). */
  updateWhere?: string;
  /** Column to return for every inserted or updated row (SQLite 3.35+ and Postgres both support RETURNING). */
  returning?: string;
}

// --- Loads: what the store's loadBatches hands the adapter's group writer.

/**
 * The store's own types of a load, filled in where they are defined (db/store/load-rows.ts) by declaration merging:
 * `prepared` is a response flattened and checked before its transaction, `result` what writing it did. The
 * contract passes them between the store and an engine's group writer without looking inside.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface LoadTypes {}
type LoadTypeOf<K extends string> = LoadTypes extends { [P in K]: infer T } ? T : never;
export type PreparedBatch = LoadTypeOf<'prepared'>;
export type LoadBatchResult = LoadTypeOf<'result'>;

export type LoadAttempt<T> = { ok: T; error?: undefined } | { ok?: undefined; error: unknown };

export interface LoadBatchesResult {
  /** One result per response loaded, in order: all of them, or those before `failed`. */
  results: LoadBatchResult[];
  /** The response that could not be loaded (nothing of it written); the ones before it are committed. */
  failed?: { index: number; error: unknown };
}

// --- Exports: the handle export/ reads, the columns it describes and the rows it streams.

/** The raw handles of an opened database that the exporter reads (any object shaped like an open Database). */
export interface ExportDatabase {
  dialect: DestinationName;
  /** Its destination's adapter: what code below the registry asks, instead of looking one up by name. */
  readonly adapter: AnyAdapter;
  sqlite?: BetterSqlite3.Database;
  pool?: pg.Pool;
  /** DuckDB: runs `fn` with the file open and locked (destinations/duckdb/database.ts). */
  session?: <T>(fn: (conn: DuckDBConnection) => Promise<T>) => Promise<T>;
}

/** An export database opened for one command, closed by it. */
export interface ExportHandle extends ExportDatabase {
  close(): Promise<void>;
}

export type ColumnKind =
  | 'integer'
  | 'number'
  | 'text'
  | 'boolean'
  | 'json'
  | 'timestamptz'
  | 'timestamp'
  | 'timestamp_s'
  | 'timestamp_ms'
  | 'date'
  | 'blob'
  | 'other';

export interface ColumnInfo {
  name: string;
  kind: ColumnKind;
  /** The type as the database declares it, for error messages. */
  declared: string;
}

/**
 * What a column holds, independent of dialect:
 * - int64: exact signed 64-bit integers (bigint in JavaScript, never a double);
 * - double: IEEE doubles (the `*_major` prices are stored this way, so they stay DOUBLE);
 * - timestamp_utc / timestamp_local: instants (with a zone, or SQLite text the project writes in UTC) and Postgres
 *   `timestamp without time zone`, as microseconds since the epoch;
 * - json: JSON text as stored; text: any other text; blob: bytes.
 */
export type ValueType = 'int64' | 'double' | 'bool' | 'timestamp_utc' | 'timestamp_local' | 'json' | 'text' | 'blob';

/**
 * How an engine's driver hands the export its values: the format writers (export/cells.ts, export/typed.ts) format
 * by these forms, never by a destination's name, so an engine whose driver hands one of them needs nothing there.
 */
export interface ValueForms {
  /**
   * - 'js-values': the driver's own JavaScript types: integers as bigint or number, reals as number, text as string,
   *   bytes as Uint8Array; booleans as 0/1 and instants as ISO 8601 text or epoch numbers, the column's kind saying
   *   which (declared types that are only affinities).
   * - 'sql-text': every value as the server's text output in a UTC session: exact decimal digits, booleans `t`/`f`,
   *   instants `2025-01-02 03:04:05.678+00`, wall-clock times `2025-01-02 03:04:05`, bytes `\x` hex, JSON as stored.
   */
  readonly values: 'js-values' | 'sql-text';
  /**
   * What a column declared `timestamp` without a zone holds: an instant written in UTC ('utc', as SQLite's
   * datetime() writes it), or a wall-clock time of no zone ('wall-clock', as SQL's `timestamp without time zone`).
   */
  readonly plainTimestamps: 'utc' | 'wall-clock';
}

/**
 * The neutral column types of the one table definition (db/model/schema/definition.ts `ColumnType`), filled in there by
 * declaration merging so the contract imports nothing of its users.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ModelTypes {}
export type ModelColumnType = ModelTypes extends { column: infer T extends string } ? T : never;

/** The SQL each neutral column type becomes on one engine, as its catalog reports it (destinations/<engine>/column-types.ts). */
export type ColumnTypeNames = Readonly<Record<ModelColumnType, string>>;

/** What the format writers know of the engine whose rows they write (export/database.ts exportTyping). */
export interface ExportTyping {
  readonly valueForms: ValueForms;
  /** The engine's SQL of the model's column types: a column declared so is one of the model's (export/typed.ts). */
  readonly columnTypes: ColumnTypeNames;
}

/** Element types of the JSON arrays the model declares (db/model/schema/definition.ts `list`), written as Parquet lists. */
export type ListElement = 'int64' | 'double' | 'text';

export interface TypedColumn extends ColumnInfo {
  type: ValueType;
  /**
   * A json column the model declares as an array of this element type: Parquet writes it as a list; the other
   * formats, which have no list type of their own, keep its JSON text.
   */
  list?: ListElement;
}

export type RawRow = unknown[];

/**
 * The rows of one table (or of a query over one table): `select <columns> from <table> [where <where>]`. From a
 * SQLite file whose table has rowids, the rows are read in pages (keyset on rowid); otherwise in one streamed statement.
 */
export interface TableQuery {
  table: string;
  /** Select expressions, already quoted. */
  columns: string[];
  /** Conditions joined with `and`; the placeholders match `params`. */
  where: string[];
  params: unknown[];
}

/** One table written to a Parquet file by DuckDB (COPY … TO), from DuckDB itself or from another engine's rows. */
export interface DuckParquetJob {
  path: string;
  table: string;
  /** The columns written, typed, with the expression each is read from (see export.ts selectExpression). */
  columns: Array<{ typed: TypedColumn; expr: string }>;
  /** Conditions with $n placeholders for `params`. */
  where: string[];
  params: unknown[];
  /** Also read the highest load_id of the rows written. */
  maxLoadId: boolean;
  /** Stops an export that streams rows (destinations/postgres/parquet.ts, destinations/sqlite/parquet.ts); DuckDB's own COPY runs to its end. */
  signal?: AbortSignal;
  /** Progress of an export that streams rows: about how many are read so far. */
  onRows?: (rows: number) => void;
}

/** Writes a table's rows to Parquet without them passing through JavaScript; null: it cannot for this table. */
export type ParquetCopy = (
  db: ExportDatabase,
  job: DuckParquetJob,
) => Promise<{ rows: number; maxLoadId: bigint | null } | null>;

/** The settings of a CSV file (export/formats/index.ts FormatSettings adds the format). */
export interface CsvSettings {
  delimiter: string;
  bom: boolean;
  nullText: string;
  lineEnding: 'crlf' | 'lf';
  /** CSV and XLSX. */
  neutralizeFormulas: boolean;
}

/** One table written as CSV by several threads reading one snapshot (destinations whose `parallelExportReaders`). */
export interface ThreadedCsvJob {
  path: string;
  db: ExportDatabase;
  query: TableQuery;
  columns: ColumnInfo[];
  settings: CsvSettings;
  threads: number;
  batchRows: number;
  loadIdIndex: number;
  /** After each chunk written: its rows, and the highest load_id among them (null without load_id). */
  onChunk: (rows: number, maxLoadId: bigint | null) => void;
  /**
   * Called every ALIVE_MS while the threads work, as long as one of them sent something in the last STALL_MS:
   * before the first chunk (threads starting, the lock, the count) and between chunks, a pipeline run's export
   * heartbeats from here. A thread silent for longer stops the calls, so the activity's heartbeat timeout ends it.
   */
  onAlive?: () => void;
  signal?: AbortSignal;
}

/** The CSV export's threads of a destination that has them (destinations/sqlite/csv-threads.ts). */
export interface CsvThreads {
  /** Threads an export may use by default (SCRAPE_ETL_EXPORT_THREADS). */
  exportThreads(): number;
  /** How many threads should export this table: 0 when it is exported in the calling thread. */
  csvThreadsFor(db: ExportDatabase, query: TableQuery, width: number, threads: number): number;
  /** Writes the file on `job.threads` threads; false, having written nothing, when the snapshot was not to be had. */
  writeCsvInThreads(job: ThreadedCsvJob): Promise<boolean>;
}

// --- The read-only source: a destination opened so that the database itself refuses writes (console, report).

export type Row = Record<string, unknown>;

/** One consistent read (a page's queries): placeholders and queries in the source's dialect. */
export interface Reader {
  readonly dialect: DestinationName;
  /** Its destination's adapter: what code below the registry asks, instead of looking one up by name. */
  readonly adapter: AnyAdapter;
  /** `?` in SQLite, `$n` elsewhere (n is 1-based). */
  ph(n: number): string;
  all(sql: string, params?: readonly unknown[]): Promise<Row[]>;
}

export interface ReadOnlySource {
  readonly dialect: DestinationName;
  /** Its destination's adapter: what code below the registry asks, instead of looking one up by name. */
  readonly adapter: AnyAdapter;
  /** The URL, password removed. */
  readonly url: string;
  /** Runs `fn` with a reader; DuckDB holds the file (read-only) for exactly this long. */
  read<T>(fn: (r: Reader) => Promise<T>): Promise<T>;
  /** The same connection in the shape export/ reads (for the download through the export writers). */
  exportDatabase(): ExportDatabase;
  close(): Promise<void>;
}

// Indexed rather than Extract<…>: the adapter's type stays covariant in its destination, so an engine's adapter is an
// AnyAdapter (what a handle carries) without a cast.
interface Handles {
  sqlite: SqliteDatabase;
  postgres: PostgresDatabase;
  duckdb: DuckDatabase;
}
interface ParsedUrls {
  sqlite: { dialect: 'sqlite'; file: string };
  postgres: { dialect: 'postgres'; url: string };
  duckdb: { dialect: 'duckdb'; file: string };
}
export type DatabaseOf<D extends DestinationName> = Handles[D];
export type ParsedUrlOf<D extends DestinationName> = ParsedUrls[D];

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
  /** Columns an inferred table may have before further fields go to its JSON overflow column (db/model/evolve/naming.ts). */
  readonly maxColumns: number;
  /** Longest identifier in UTF-8 bytes; longer inferred names are cut and end with a hash (db/model/evolve/naming.ts). */
  readonly maxIdentifierBytes: number;
  /** Bytes a row may need in the worst case (Postgres: one 8 KB heap page); undefined: no row budget. */
  readonly maxRowBytes?: number;
  /** Column names the database gives a meaning of its own (system columns): a data column never takes one. */
  readonly reservedNames: ReadonlySet<string>;
  /** One process at a time may open the file for writing (a cross-process file lock queues the others). */
  readonly oneWriterPerFile: boolean;
  /**
   * Several transactions write at once, so loads take advisory locks in one global order (db/store/load-locks.ts,
   * db/store/evolve/registry.ts); false where writers are serialised anyway (BEGIN IMMEDIATE, one writer per file).
   */
  readonly concurrentWriters: boolean;
  /** ALTER TABLE … ADD COLUMN IF NOT EXISTS. */
  readonly addColumnIfNotExists: boolean;
  /** Declared column types are the values' types (else affinities, as SQLite's: bool is 0/1, timestamps text). */
  readonly typedColumns: boolean;
  /** A statement costs a fixed price large enough that the last chunk of a multi-row write is sent at its exact size. */
  readonly exactChunks: boolean;
  /** Several threads may read one snapshot of the file (the CSV export's threads, destinations/sqlite/csv-threads.ts). */
  readonly parallelExportReaders: boolean;
  /**
   * COMMENT ON TABLE / COLUMN: the descriptions of tables and columns live in the database's catalog (else in the
   * rows of scrape_etl_comments, db/model/schema/comments.ts).
   */
  readonly commentOn: boolean;
}

/** How loadBatches writes a list of responses; the adapter chooses transactions, savepoints and group writes. */
export interface BatchWriter {
  /** Writes response `index` alone inside `tx`. */
  one(tx: Tx, index: number): Promise<LoadBatchResult>;
  /**
   * Writes the list as groups where `group` can, one by one with `one` otherwise (db/store/load.ts loadInGroups); a lone
   * response too when the adapter sets `loneLoadsAsLists`.
   */
  inGroups(
    one: (index: number) => Promise<LoadAttempt<LoadBatchResult>>,
    group: ((preps: PreparedBatch[]) => Promise<LoadAttempt<LoadBatchResult[]>>) | undefined,
  ): Promise<LoadBatchesResult>;
}

/** A reader of one consistent snapshot (the console's pages, checks): placeholders and queries of its destination. */
export interface CatalogReader {
  /** Its destination's adapter: what code below the registry asks, instead of looking one up by name. */
  readonly adapter: AnyAdapter;
  ph(n: number): string;
  all(sql: string, params?: readonly Param[]): Promise<Array<Record<string, unknown>>>;
}

/** The export's reads of one destination (export/): rows in batches, catalog types, watermarks. */
export interface ExportReader {
  /** Rows of a query (objects), integers exact (bigint, or decimal text from Postgres). */
  query(db: ExportDatabase, sql: string, params?: readonly unknown[]): Promise<Array<Record<string, unknown>>>;
  /** Streams a table query or SQL text in batches; memory holds one batch. */
  rowBatches(
    db: ExportDatabase,
    query: TableQuery | string,
    params: unknown[],
    batchSize: number,
  ): AsyncGenerator<RawRow[]>;
  /** How the values of `query` and `rowBatches` arrive (the engine's driver's forms, or converted to one). */
  readonly valueForms: ValueForms;
  /** The CSV export's threads, loaded when asked for (present where `capabilities.parallelExportReaders`). */
  readonly csvThreads?: () => Promise<CsvThreads>;
  /** A catalog type as the export declares it, with its kind. */
  columnKind(catalogType: string): { declared: string; kind: ColumnKind };
  readWatermark(db: ExportDatabase, pipeline: string, table: string): Promise<bigint | null>;
  readLastExportedFile(
    db: ExportDatabase,
    pipeline: string,
    table: string,
  ): Promise<{ run: string; file: string; rows: number } | null>;
  advanceWatermark(
    db: ExportDatabase,
    pipeline: string,
    table: string,
    lastLoadId: bigint,
    written: { run: string | null; file: string | null; rows: number | null },
  ): Promise<void>;
}

/** The adapter an open handle carries: any destination's, its methods taking any destination's handle. */
export type AnyAdapter = DestinationAdapter<DestinationName>;

export interface DestinationAdapter<out D extends DestinationName> {
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
    /** The SQL each of the model's neutral column types becomes here (the engine's migrations were made from it). */
    readonly columnTypes: ColumnTypeNames;
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
   * (destinations/postgres/parquet.ts). Loaded only when present and asked for.
   */
  readonly parquetCopy?: () => Promise<ParquetCopy>;
  /** The bounded read-only `sql:` check (checks/sql-readonly.ts). */
  readOnlyQuery(
    db: DatabaseOf<D>,
    sql: string,
    o: { timeoutMs: number },
  ): Promise<{ rows: Array<Record<string, unknown>> }>;
  /**
   * Reads an existing, current destination for the commands that answer at once (status, history, schema show)
   * without opening it for writing or loading its heavier modules; undefined when it cannot (an older schema), and
   * the caller opens it in full. Absent: always opened in full.
   */
  readCurrent?<T>(parsed: ParsedUrlOf<D>, fn: (r: QueryReader) => Promise<T>): Promise<{ value: T } | undefined>;
  /**
   * Opens an existing, current destination for `scrape-etl export --out` with its driver alone (no query builder,
   * no migrator): what the exporter needs, watermark writes included. Undefined when it cannot (an older schema),
   * and the caller opens it in full. Absent: always opened in full.
   */
  openCurrentForExport?(parsed: ParsedUrlOf<D>): Promise<ExportHandle | undefined>;
  /** Opens an existing destination so that the database itself refuses writes (console, report). */
  openReadOnly(parsed: ParsedUrlOf<D>, url: string): Promise<ReadOnlySource>;
  /** schema_history's columns of `tables`, read without opening for writing; undefined when that cannot be done cheaply. */
  schemaHistoryColumns(
    parsed: ParsedUrlOf<D>,
    tables: readonly string[],
  ): Promise<Map<string, Set<string>> | undefined>;
  /**
   * For a destination one process writes at a time: why a worker of this host waits for it right now (who holds
   * it, since when), in one line, or undefined. `run` shows it while its run does not move. Read from files beside
   * the destination, without opening it.
   */
  waitNote?(parsed: ParsedUrlOf<D>): string | undefined;
}
