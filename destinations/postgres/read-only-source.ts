// Postgres opened for reading only (the console, the report): every session starts with
// `default_transaction_read_only = on`, so even a statement sent by mistake fails.
import type pg from 'pg';
import { redactDatabaseUrl } from '../../db/model/url.js';
import type { ReadOnlySource, Reader, Row } from '../contract.js';
import { mustExist, SourceError } from '../read-only-errors.js';
// The adapter this engine's handles carry (read at run time only, so the import cycle with index.ts is harmless).
import { postgresDestination } from './index.js';

export async function openPostgresReadOnly(url: string): Promise<ReadOnlySource> {
  const { default: pgModule } = await import('pg');
  const safe = redactDatabaseUrl(url);
  // Every value as the server's text (int8 exact, timestamps as written); pages format what they show.
  const types = { getTypeParser: () => (v: string) => v };
  const pool = new pgModule.Pool({
    connectionString: url,
    max: 4,
    application_name: 'scrape-etl-console',
    options: '-c default_transaction_read_only=on -c statement_timeout=30000',
    types,
  } as pg.PoolConfig);
  pool.on('error', () => {});
  pool.on('connect', (c) => c.on('error', () => {}));
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => {});
    throw new SourceError(`cannot connect to Postgres ${safe}: ${(err as Error).message}`, { cause: err });
  }
  return {
    dialect: 'postgres',
    adapter: postgresDestination,
    url: safe,
    read: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN READ ONLY');
        try {
          return await fn({
            dialect: 'postgres',
            adapter: postgresDestination,
            ph: (n) => `$${n}`,
            all: async (sql, params = []) => (await client.query(sql, params as unknown[])).rows as Row[],
          });
        } finally {
          await client.query('ROLLBACK').catch(() => {});
        }
      } finally {
        client.release();
      }
    },
    exportDatabase: () => ({ dialect: 'postgres', adapter: postgresDestination, pool }),
    close: async () => {
      await pool.end();
    },
  };
}
