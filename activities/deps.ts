// What the activities of one worker share, handed to createActivities(deps) so tests and embedders pass real
// parts explicitly: the worker's settings (settings/, built by its entry point), the scraping-service client
// (configured from those settings, so the token never travels through Temporal), one open database per destination
// URL, and the worker's tuning.
import { secretKeys, type SecretKeys } from '../lib/secret-key.js';
import { ScraperClient, type ScraperClientOptions } from '../client/index.js';
import { ApplicationFailure } from '@temporalio/activity';
import { DatabaseConfigError, openDatabase, type Database } from '../destinations/open.js';
import type { WorkerTuning } from '../temporal/contract.js';
import { createMetrics, type Metrics } from '../temporal/metrics.js';
import { readNotifyConfig, type NotifyConfig } from '../alerts/notify-config.js';
import { readWorkerTuning } from '../temporal/tuning.js';
import { settingsFor } from '../settings/process.js';
import type { Env, Settings } from '../settings/settings.js';

export interface ActivityDeps {
  /** The worker's settings, as its entry point built them. */
  settings: Settings;
  /** The service client; called when first needed, so a worker serving only result-free kinds starts without a token. */
  client(): ScraperClient;
  /** The open database of a destination URL (opened once per URL and worker). */
  destination(url: string): Promise<Database>;
  tuning: WorkerTuning;
  /** The product's Prometheus metrics of this worker (temporal/metrics.ts). */
  metrics: Metrics;
  /** Alerts: the worker's environment for webhook URLs, its default webhook, the Web UI base (alerts/notify-config.ts). */
  notify: NotifyConfig;
  /** The keys whose seal a workflow input must carry (lib/secret-key.ts; read when the first run is planned). */
  secretKeys(): SecretKeys;
  /**
   * After an ambiguous create-and-run (no usable answer), how long the scraper is looked for by name before a create
   * is sent again: the service may still be processing the first one (SCRAPE_ETL_CREATE_LOOKUP_SECONDS, default 120).
   */
  createLookupMs: number;
  /** Told when this worker starts or finishes a run's pipeline_runs row: `up`'s one line per run (cli/up/up-log.ts). */
  onRunEvent?: (e: RunEvent) => void;
}

/** A run's start (its row created) and end (its row finished), as the worker that did it saw them. */
export type RunEvent =
  | { event: 'started'; pipeline: string; workflowId: string }
  | {
      event: 'ended';
      pipeline: string;
      workflowId: string;
      status: string;
      rowsByTable: Record<string, number>;
      seenByTable?: Record<string, number>;
      /** Values its loads kept out of their columns (pipeline_runs.kept_out); absent when none. */
      keptOut?: number;
      durationMs: number | null;
      error: string | null;
    };

export interface OwnedActivityDeps extends ActivityDeps {
  /** Closes every database opened through `destination` (worker shutdown). */
  close(): Promise<void>;
}

/**
 * One retry layer: inside an activity the client makes at most this many attempts per call (enough to ride out a
 * dropped keep-alive connection), and Temporal's retry policy with its backoff and timeouts does the rest. Stacking
 * the client's full budget under Temporal's multiplied them (up to 50 HTTP attempts for one call).
 */
export const CLIENT_ATTEMPTS_IN_ACTIVITIES = 2;

export interface ActivityDepsOptions {
  /** The worker's settings (service address and token, tuning, alerts); default: this process's. */
  settings?: Settings;
  /** An environment to read the settings from instead (tests): SCRAPER_BASE_URL, SCRAPER_API_TOKEN, SCRAPE_ETL_*. */
  env?: Env;
  /** Client options over the environment's (tests pass baseUrl and token here). */
  client?: ScraperClientOptions;
  /** Tuning over the environment's. */
  tuning?: Partial<WorkerTuning>;
  /** The worker polls the embedded dev server: defaults fit a server where nothing is billed (temporal/tuning.ts). */
  embeddedServer?: boolean;
  /** Metrics registry to record into; default a new one (the worker command serves it). */
  metrics?: Metrics;
  /** Base URL of the Temporal Web UI for links in alerts; default the setting SCRAPE_ETL_WEB_UI_URL. */
  webUiUrl?: string;
  /**
   * The key file whose seal inputs must carry; default this process's (SCRAPE_ETL_KEY_FILE, else the data folder's):
   * the same process-wide setting the payload codec and the starters use, never the activities' `env`.
   */
  keyFile?: string;
  /** See ActivityDeps.onRunEvent. */
  onRunEvent?: (e: RunEvent) => void;
}

export function createActivityDeps(opts: ActivityDepsOptions = {}): OwnedActivityDeps {
  const settings = opts.settings ?? settingsFor(opts.env);
  const tuning = { ...readWorkerTuning(settings, { embeddedServer: opts.embeddedServer === true }), ...opts.tuning };
  const metrics = opts.metrics ?? createMetrics();
  const notify = readNotifyConfig(settings, opts.webUiUrl !== undefined ? { webUiUrl: opts.webUiUrl } : {});
  let client: ScraperClient | undefined;
  const databases = new Map<string, Promise<Database>>();
  return {
    settings,
    tuning,
    metrics,
    notify,
    secretKeys: () => secretKeys(opts.keyFile),
    createLookupMs: settings.createLookupSeconds * 1000,
    ...(opts.onRunEvent ? { onRunEvent: opts.onRunEvent } : {}),
    client() {
      client ??= new ScraperClient({
        settings,
        ...opts.client,
        onAttempt: (a) => {
          metrics.apiAttempt(a.endpoint, a.status);
          opts.client?.onAttempt?.(a);
        },
        onRetry: (r) => {
          metrics.apiRetry(r.endpoint);
          opts.client?.onRetry?.(r);
        },
        retry: {
          ...opts.client?.retry,
          maxAttempts: Math.min(
            opts.client?.retry?.maxAttempts ?? CLIENT_ATTEMPTS_IN_ACTIVITIES,
            CLIENT_ATTEMPTS_IN_ACTIVITIES,
          ),
        },
      });
      return client;
    },
    destination(url) {
      let db = databases.get(url);
      if (!db) {
        db = openDatabase(url).catch((err: unknown) => {
          // Not a database, no permission, a wrong password: the same answer on every attempt, so fail now.
          if (err instanceof DatabaseConfigError)
            throw ApplicationFailure.nonRetryable(err.message, 'DestinationConfigError');
          throw err;
        });
        databases.set(url, db);
        // A failed open is not cached: the next attempt tries again.
        db.catch(() => databases.delete(url));
      }
      return db;
    },
    async close() {
      const open = [...databases.values()];
      databases.clear();
      const api = client;
      client = undefined;
      // The client's pooled keep-alive sockets are closed with it, after any request still in flight.
      await Promise.all([api?.close(), ...open.map(async (p) => (await p.catch(() => undefined))?.close())]);
    },
  };
}
