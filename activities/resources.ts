// What activities share inside one worker process: one scraping-service client (configured from the worker's
// environment, so the token never travels through Temporal) and one open database per destination URL.
import { ApplicationFailure, CancelledFailure } from '@temporalio/activity';
import { ScraperApiError, ScraperClient } from '../client/index.js';
import { openDatabase, type Database } from '../db/connect.js';

let client: ScraperClient | undefined;
const databases = new Map<string, Promise<Database>>();

export function scraperClient(): ScraperClient {
  // Built lazily: a worker that only serves result-free kinds still starts without SCRAPER_API_TOKEN.
  client ??= new ScraperClient();
  return client;
}

export function destination(url: string): Promise<Database> {
  let db = databases.get(url);
  if (!db) {
    db = openDatabase(url);
    databases.set(url, db);
    // A failed open is not cached: the next attempt tries again.
    db.catch(() => databases.delete(url));
  }
  return db;
}

/** Closes every database the activities opened (worker shutdown). */
export async function closeActivityResources(): Promise<void> {
  const open = [...databases.values()];
  databases.clear();
  client = undefined;
  await Promise.all(open.map(async (p) => (await p.catch(() => undefined))?.close()));
}

/**
 * Client errors become failures that carry only their (already redacted) message and class name: no request,
 * headers or body objects reach history. Errors the client marks non-retryable (400/401/403/404/422, a body
 * that breaks the contract) are not retried by Temporal either.
 */
export function asActivityFailure(err: unknown): unknown {
  if (err instanceof CancelledFailure || err instanceof ApplicationFailure) return err;
  if (err instanceof ScraperApiError) {
    return err.retryable
      ? ApplicationFailure.retryable(err.message, err.name)
      : ApplicationFailure.nonRetryable(err.message, err.name);
  }
  return err;
}

export function isScraperApiError(err: unknown): err is ScraperApiError {
  return err instanceof ScraperApiError;
}

/** Scraping-run ids arrive as decimal strings from the workflow; the client takes number or bigint. */
export function runIdOf(id: string): number | bigint {
  const big = BigInt(id);
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

export function addRows(into: Record<string, number>, rows: Partial<Record<string, number>>): void {
  for (const [t, n] of Object.entries(rows)) if (n !== undefined) into[t] = (into[t] ?? 0) + n;
}
