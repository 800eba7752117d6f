// The session an export reads a Postgres destination in: one pooled connection, one REPEATABLE READ READ ONLY
// snapshot (the rows and the watermark's highest load id agree), and session settings that make the server's text
// ISO 8601 in UTC, which export/cells.ts formats per column kind. Shared by the cursor reader (export-reader.ts)
// and the COPY path of Parquet (destinations/postgres/parquet.ts).
//
// The pool listens for errors only on idle clients: while this one is checked out, a dropped connection is an
// 'error' event here, which `lost` rejects with, so a read loop can race it (a stream may never end on its own).
// A session that ends without commit() is rolled back; one whose connection failed, or whose rollback failed, is
// dropped from the pool rather than handed to the next user in an unknown state.
import type pg from 'pg';
import type { ExportDatabase } from '../../export/database.js';
import { poolOf } from './handle.js';

export interface ExportSnapshot {
  client: pg.PoolClient;
  /** Rejects with the connection's error when it fails while checked out (never resolves). */
  lost: Promise<never>;
  /** The connection's error, once there was one. */
  error(): Error | undefined;
  /** Marks the connection unusable (a COPY that did not end leaves it in the middle of its output). */
  poison(err: Error): void;
  commit(): Promise<void>;
  /** Rolls back unless committed, and gives the connection back (or drops it). Call once, in a finally. */
  release(): Promise<void>;
}

export async function openExportSnapshot(db: ExportDatabase): Promise<ExportSnapshot> {
  const client = await poolOf(db).connect();
  let connectionError: Error | undefined;
  let connectionLost!: (err: Error) => void;
  const lost = new Promise<never>((_resolve, reject) => (connectionLost = reject));
  lost.catch(() => {});
  const onError = (err: Error) => {
    connectionError ??= err;
    connectionLost(err);
  };
  client.on('error', onError);
  let finished = false;
  const snapshot: ExportSnapshot = {
    client,
    lost,
    error: () => connectionError,
    poison: (err) => void (connectionError ??= err),
    async commit() {
      await client.query('COMMIT');
      finished = true;
    },
    async release() {
      if (!finished && !connectionError) {
        // Stopped early (error or abort): end the transaction, or drop the connection if even that fails.
        try {
          await client.query('ROLLBACK');
        } catch (err) {
          connectionError = err as Error;
        }
      }
      if (!connectionError) client.off('error', onError);
      client.release(connectionError);
    },
  };
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`SET LOCAL TIME ZONE 'UTC'`);
    await client.query(`SET LOCAL datestyle = 'ISO, YMD'`);
    await client.query(`SET LOCAL intervalstyle = 'iso_8601'`);
  } catch (err) {
    await snapshot.release();
    throw err;
  }
  return snapshot;
}
