// How many connections one Postgres pool of a worker holds (SCRAPE_ETL_PG_POOL_SIZE, settings/definition.ts).
import { defaultOf } from '../../settings/definition.js';
import { settingsFor } from '../../settings/process.js';
import type { Env } from '../../settings/settings.js';

/**
 * Connections per Postgres pool. A worker opens one pool per destination URL and shares it between all its
 * activities (activities/resources.ts); loads queue for a connection rather than open more, so several workers
 * stay within the server's max_connections (workers x pool size). Ten matches node-postgres's default and keeps
 * a worker's 20 concurrent activities busy, since each transaction holds its connection only while it writes.
 */
export const DEFAULT_PG_POOL_SIZE: number = defaultOf('pgPoolSize');

/** SCRAPE_ETL_PG_POOL_SIZE of these settings (an environment's, a test's; default: this process's). */
export function pgPoolSize(env?: Env): number {
  return settingsFor(env).pgPoolSize;
}
