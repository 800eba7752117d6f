// How many connections one Postgres pool of a worker holds (SCRAPE_ETL_PG_POOL_SIZE).
/**
 * Connections per Postgres pool. A worker opens one pool per destination URL and shares it between all its
 * activities (activities/resources.ts); loads queue for a connection rather than open more, so several workers
 * stay within the server's max_connections (workers x pool size). Ten matches node-postgres's default and keeps
 * a worker's 20 concurrent activities busy, since each transaction holds its connection only while it writes.
 */
export const DEFAULT_PG_POOL_SIZE = 10;

export function pgPoolSize(env: NodeJS.ProcessEnv = process.env): number {
  const v = env['SCRAPE_ETL_PG_POOL_SIZE']?.trim();
  if (!v) return DEFAULT_PG_POOL_SIZE;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1000) {
    throw new Error(`SCRAPE_ETL_PG_POOL_SIZE='${v}' must be an integer from 1 to 1000 (connections per Postgres pool)`);
  }
  return n;
}
