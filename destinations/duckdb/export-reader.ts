// The exporter's reads from a DuckDB destination. Values are handed on as the text Postgres would send for the
// same data (int8 as decimal text, booleans t/f, timestamptz as `YYYY-MM-DD HH:MM:SS.ffffff+00`, bytea as \x…), and
// column types as Postgres names, so every format writer treats a DuckDB table exactly as a Postgres one (see
// the value forms in column-types.ts) and the two destinations write byte-identical files for the same rows.
import type { DuckDBConnection, DuckDBResult } from '@duckdb/node-api';
import type { ExportDatabase } from '../../export/database.js';
import type { RawRow } from '../../export/rows.js';

export interface DuckSessionHolder {
  session<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T>;
}

/** What DuckDB's readers need of a handle: its session (the adapter is not asked here). */
type DuckHandle = Pick<ExportDatabase, 'dialect' | 'session'>;

export function duckOf(db: DuckHandle): DuckSessionHolder {
  if (db.dialect !== 'duckdb' || !db.session)
    throw new Error('export: database says dialect "duckdb" but has no DuckDB session');
  return { session: db.session };
}

/** Rows of a query as JavaScript values, in one session. */
export async function duckQuery(
  db: ExportDatabase,
  sql: string,
  params: unknown[] = [],
): Promise<Array<Record<string, unknown>>> {
  return duckOf(db).session(
    async (conn) =>
      (await conn.runAndReadAll(sql, params as never)).getRowObjectsJS() as Array<Record<string, unknown>>,
  );
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** A TIMESTAMPTZ (microseconds since the epoch) as Postgres writes it in a UTC session: fraction without trailing zeros. */
function timestamptzText(micros: bigint): string {
  const ms = micros / 1000n;
  const d = new Date(Number(ms));
  if (Number.isNaN(d.getTime())) return micros > 0n ? 'infinity' : '-infinity';
  let frac = micros % 1_000_000n;
  if (frac < 0n) frac += 1_000_000n;
  const fraction = frac === 0n ? '' : `.${frac.toString().padStart(6, '0').replace(/0+$/, '')}`;
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${fraction}+00`;
}

/** Postgres writes float exponents with at least two digits (1e-07), JavaScript with one. */
function floatText(n: number): string {
  return String(n).replace(/e([+-])(\d)$/, 'e$10$2');
}

type Converter = (v: unknown) => unknown;

function converterFor(typeId: number): Converter {
  // DuckDBTypeId numbers (stable in the C API): BOOLEAN 1, FLOAT 10, DOUBLE 11, BLOB 18, TIMESTAMP_TZ 31.
  switch (typeId) {
    case 1:
      return (v) => (v ? 't' : 'f');
    case 10:
    case 11:
      return (v) => floatText(v as number);
    case 18:
      return (v) => `\\x${Buffer.from((v as { bytes: Uint8Array }).bytes).toString('hex')}`;
    case 31:
      return (v) => timestamptzText((v as { micros: bigint }).micros);
    default:
      return String;
  }
}

/**
 * Streams a query's rows in batches. The session (and with it the file's lock) is held until the last batch is
 * taken or the consumer stops; memory holds one DuckDB chunk (2,048 rows) and one batch.
 */
export async function* duckBatches(
  db: DuckHandle,
  sql: string,
  params: unknown[],
  batchSize: number,
): AsyncGenerator<RawRow[]> {
  const { conn, end } = await holdSession(duckOf(db));
  let result: DuckDBResult | undefined;
  let exhausted = false;
  try {
    result = await conn.stream(sql, params as never);
    const convert = result.columnTypes().map((t) => converterFor(t.typeId));
    let batch: RawRow[] = [];
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      for (const row of chunk.getRows()) {
        batch.push(row.map((v, i) => (v === null ? null : convert[i]!(v))));
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
    exhausted = true;
    if (batch.length > 0) yield batch;
  } finally {
    if (result && !exhausted) await closeStream(conn, result);
    await end();
  }
}

/**
 * Ends a streaming result its reader stopped taking (an export stopped, a look for one row). A streaming result
 * holds the database's client context: left to the garbage collector, it kept the instance, and the file, open
 * after the session closed them (instances.ts, issue #41). Interrupting the query and fetching until DuckDB says
 * it is over closes it now.
 */
async function closeStream(conn: DuckDBConnection, result: DuckDBResult): Promise<void> {
  conn.interrupt();
  try {
    for (let i = 0; i < 1_000; i++) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) return;
    }
  } catch {
    // INTERRUPT: the result is closed
  }
}

/** A session kept open across the yields of a generator: the caller ends it. */
async function holdSession(holder: DuckSessionHolder): Promise<{ conn: DuckDBConnection; end: () => Promise<void> }> {
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  let opened!: (c: DuckDBConnection) => void;
  const connection = new Promise<DuckDBConnection>((r) => (opened = r));
  const session = holder.session(async (c) => {
    opened(c);
    await finished;
  });
  const conn = await Promise.race([
    connection,
    session.then(() => Promise.reject(new Error('export: DuckDB session ended before it opened'))),
  ]);
  return {
    conn,
    end: async () => {
      finish();
      await session;
    },
  };
}
