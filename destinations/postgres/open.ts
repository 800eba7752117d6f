// Opening, migrating and probing a Postgres destination.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import * as pgSchema from './schema.js';
import type { PostgresDatabase } from '../contract.js';
import { redactDatabaseUrl } from '../../db/model/url.js';
// The adapter this engine's handles carry (read at run time only, so the import cycle with index.ts is harmless).
import { postgresDestination } from './index.js';

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * json columns read back as the text they hold, as every other destination hands them on: node-postgres would
 * parse them into objects (64-bit integers inside rounded, key order and duplicate keys lost).
 */
const JSON_AS_TEXT: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.JSON
      ? (value: string) => value
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

// Any constant works; it only has to be the same in every process that migrates this schema.
const PG_MIGRATION_LOCK_KEY = 7_238_451_907;

export async function openPostgres(url: string, poolSize: number): Promise<PostgresDatabase> {
  const safeUrl = redactDatabaseUrl(url);
  if (!Number.isInteger(poolSize) || poolSize < 1)
    throw new Error(`Postgres pool size must be a positive integer, got ${poolSize}`);
  // application_name makes a worker's connections recognisable in pg_stat_activity.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    application_name: 'scrape-etl',
    types: JSON_AS_TEXT,
  });
  // An idle client losing its connection must not crash the process; the next query reports the failure.
  pool.on('error', () => {});
  // Nor one the pool has handed out: pg-pool listens for errors only on idle clients, and a server restart cuts
  // checked-out connections too (a load between two statements), which then emit 'error' with no listener: an
  // uncaught exception that ended the worker process. Their queries still fail; the pool drops them on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    const client = await pool.connect();
    try {
      // Serialise concurrent migrators (several workers starting at once) on a session-level advisory lock.
      await client.query('SELECT pg_advisory_lock($1)', [PG_MIGRATION_LOCK_KEY]);
      try {
        await migratePg(drizzlePg({ client }), { migrationsFolder: MIGRATIONS });
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [PG_MIGRATION_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => {});
    throw new Error(`cannot prepare Postgres database ${safeUrl}: ${(err as Error).message}`, { cause: err });
  }
  let closed = false;
  return {
    dialect: 'postgres',
    adapter: postgresDestination,
    url: safeUrl,
    drizzle: drizzlePg({ client: pool, schema: pgSchema }),
    pool,
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/** host:port of a Postgres URL for messages (the defaults libpq would use when they are left out). */
function postgresEndpoint(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || u.searchParams.get('host') || 'localhost';
    return `${host}:${u.port || '5432'}`;
  } catch {
    return redactDatabaseUrl(url);
  }
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ECONNRESET',
]);
export async function probePostgres(url: string, timeoutMs: number): Promise<void> {
  const endpoint = postgresEndpoint(url);
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    application_name: 'scrape-etl-probe',
  });
  // A connection dropped after the probe must not crash the process; the probe's own awaits report failures.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    const e = err as Error & { code?: unknown };
    const code = typeof e.code === 'string' ? e.code : undefined;
    // pg's own messages name the role or database ("password authentication failed for user …", "database … does
    // not exist") and never the password; network errors say little, so say where we tried.
    if (
      (code !== undefined && UNREACHABLE_CODES.has(code)) ||
      /timeout|timed out|terminated unexpectedly/i.test(e.message)
    ) {
      throw new Error(
        `cannot reach Postgres at ${endpoint} (${code ?? e.message}); is the server running and the host and port right?`,
        { cause: err },
      );
    }
    throw new Error(`Postgres at ${endpoint}: ${e.message}`, { cause: err });
  } finally {
    await client.end().catch(() => {});
  }
}
