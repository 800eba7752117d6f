// The product's Prometheus metrics (prom-client), one registry per worker's activities. Fed by the service
// client's attempt and retry hooks, by the pipeline_runs bookkeeping (rows and tokens per finished run), by an
// activity interceptor timing loads and exports (temporal/worker.ts) and by the notify activity. Served, with
// the Temporal SDK's own metrics, by temporal/metrics-server.ts. Names and labels are documented in the README
// ("Metrics"); labels are bounded sets (pipelines, tables, endpoint templates, statuses), never ids or URLs.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { FinishedRunState } from '../lib/run-states.js';

export interface Metrics {
  registry: Registry;
  apiAttempt(endpoint: string, status: number | null): void;
  apiRetry(endpoint: string): void;
  runFinished(r: {
    pipeline: string;
    kind: string;
    status: FinishedRunState;
    rowsByTable: Record<string, number>;
    seenByTable?: Record<string, number>;
    tokenUsage: number | null;
    /** Values its loads kept out of their columns (pipeline_runs.kept_out). */
    keptOut?: number;
    durationMs: number | null;
  }): void;
  activityFinished(a: { activity: string; pipeline: string; seconds: number; outcome: 'ok' | 'error' }): void;
  webhook(event: string, status: string): void;
  /**
   * A pipeline's last successful run finished at `at`: the gauge keeps the latest it was told, so seeding it from the
   * destination's pipeline_runs at start (`scrape-etl up`) and a run finishing later never move it back.
   */
  lastSuccess(pipeline: string, at: Date): void;
  /** An alert given up on (the run's deliveries ended without it): by event and a bounded reason. */
  alertUndelivered(event: string, reason: string): void;
  /** A check that failed (or could not be evaluated) in a run or an evaluation without one. */
  checkFailed(c: { pipeline: string; check: string; severity: string }): void;
  /** A budget limit and what it has counted in its current period, as a run of `pipeline` ended (budget/). */
  budget(b: { pipeline: string; scope: string; limit: string; value: number; spent: number }): void;
}

/** `GET /api/scraping-runs/12` -> `GET /api/scraping-runs/:id`: one series per endpoint, not per id. */
export function endpointTemplate(endpoint: string): string {
  return endpoint.replace(/\/\d+(?=\/|$|\?)/g, '/:id').replace(/\?.*$/, '');
}

/** Activities that load data, and the one that exports it: their durations are the load and export histograms. */
const LOAD_ACTIVITIES = new Set(['loadUrlChunk', 'loadRunResults', 'loadResultsPages', 'createAndRun']);
const EXPORT_ACTIVITIES = new Set(['runExports']);

// Activities run from seconds to hours; loads of one batch or chunk sit in the lower buckets.
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

export function createMetrics(): Metrics {
  const registry = new Registry();
  const apiCalls = new Counter({
    name: 'scrape_etl_api_calls_total',
    help: 'HTTP attempts to the scraping service, by endpoint template and status (status "none": no answer, e.g. a timeout)',
    labelNames: ['endpoint', 'status'] as const,
    registers: [registry],
  });
  const apiRetries = new Counter({
    name: 'scrape_etl_api_retries_total',
    help: "Retries the service client made inside an activity (Temporal's own activity retries are temporal_* metrics)",
    labelNames: ['endpoint'] as const,
    registers: [registry],
  });
  const runs = new Counter({
    name: 'scrape_etl_pipeline_runs_total',
    help: 'Pipeline runs finished by this worker, by pipeline and status',
    labelNames: ['pipeline', 'kind', 'status'] as const,
    registers: [registry],
  });
  const rows = new Counter({
    name: 'scrape_etl_rows_loaded_total',
    help: "Rows written by finished runs, by pipeline and table (each run's pipeline_runs.rows_by_table, counted once when it finishes)",
    labelNames: ['pipeline', 'table'] as const,
    registers: [registry],
  });
  const seen = new Counter({
    name: 'scrape_etl_rows_seen_total',
    help: 'Rows the responses of finished runs held, changed or not, by pipeline and table (pipeline_runs.seen_by_table)',
    labelNames: ['pipeline', 'table'] as const,
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'scrape_etl_token_usage_total',
    help: "The service's tokenUsage (scraping credits) of finished runs, by pipeline",
    labelNames: ['pipeline'] as const,
    registers: [registry],
  });
  const keptOut = new Counter({
    name: 'scrape_etl_values_kept_out_total',
    help: 'Values the loads of finished runs kept out of their columns (a service timestamp that is not one, stored NULL), by pipeline (pipeline_runs.kept_out)',
    labelNames: ['pipeline'] as const,
    registers: [registry],
  });
  const runDuration = new Histogram({
    name: 'scrape_etl_pipeline_run_duration_seconds',
    help: 'Duration of finished pipeline runs, from the workflow start to its pipeline_runs row being finished',
    labelNames: ['pipeline', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const load = new Histogram({
    name: 'scrape_etl_load_duration_seconds',
    help: 'Duration of loading activity attempts (fetch, land and upsert), by activity and pipeline',
    labelNames: ['activity', 'pipeline', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const exportDuration = new Histogram({
    name: 'scrape_etl_export_duration_seconds',
    help: "Duration of a run's export activity attempts, by pipeline",
    labelNames: ['pipeline', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const webhooks = new Counter({
    name: 'scrape_etl_webhooks_total',
    help: 'Webhook requests sent for alerts, by event and HTTP status ("error": no answer)',
    labelNames: ['event', 'status'] as const,
    registers: [registry],
  });
  const checkFailures = new Counter({
    name: 'scrape_etl_check_failures_total',
    help: 'Data checks that failed or could not be evaluated, by pipeline, check name and severity (warn, error)',
    labelNames: ['pipeline', 'check', 'severity'] as const,
    registers: [registry],
  });

  const lastSuccess = new Gauge({
    name: 'scrape_etl_pipeline_last_success_timestamp_seconds',
    help: "When the pipeline's last succeeded run finished (Unix seconds): from the destination's pipeline_runs when `scrape-etl up` starts, then from runs finishing on this worker. Alert on time() minus it.",
    labelNames: ['pipeline'] as const,
    registers: [registry],
  });
  const lastSuccessSeen = new Map<string, number>();
  const noteSuccess = (pipeline: string, at: Date) => {
    const s = at.getTime() / 1000;
    if (!Number.isFinite(s) || (lastSuccessSeen.get(pipeline) ?? -Infinity) >= s) return;
    lastSuccessSeen.set(pipeline, s);
    lastSuccess.set({ pipeline }, s);
  };
  const undelivered = new Counter({
    name: 'scrape_etl_alert_delivery_failures_total',
    help: "Alerts given up on when a run's deliveries ended (bounded by notify.deliver_within), by event and reason (config, redirect, http_4xx, http_5xx, timeout, network)",
    labelNames: ['event', 'reason'] as const,
    registers: [registry],
  });

  const budgetLimit = new Gauge({
    name: 'scrape_etl_budget_limit',
    help: 'A budget limit (budget: of the pipeline or its project), by pipeline, scope (pipeline, project) and limit (calls.day, tokens.month, ...)',
    labelNames: ['pipeline', 'scope', 'limit'] as const,
    registers: [registry],
  });
  const budgetSpent = new Gauge({
    name: 'scrape_etl_budget_spent',
    help: "What a budget limit has counted in its current period (a run's own for .run limits), as the pipeline's last run on this worker ended",
    labelNames: ['pipeline', 'scope', 'limit'] as const,
    registers: [registry],
  });

  return {
    registry,
    lastSuccess: noteSuccess,
    budget(b) {
      const labels = { pipeline: b.pipeline, scope: b.scope, limit: b.limit };
      budgetLimit.set(labels, b.value);
      budgetSpent.set(labels, b.spent);
    },
    apiAttempt: (endpoint, status) =>
      apiCalls.inc({ endpoint: endpointTemplate(endpoint), status: status === null ? 'none' : String(status) }),
    apiRetry: (endpoint) => apiRetries.inc({ endpoint: endpointTemplate(endpoint) }),
    runFinished(r) {
      runs.inc({ pipeline: r.pipeline, kind: r.kind, status: r.status });
      if (r.status === 'succeeded') noteSuccess(r.pipeline, new Date());
      for (const [table, n] of Object.entries(r.rowsByTable)) rows.inc({ pipeline: r.pipeline, table }, n);
      for (const [table, n] of Object.entries(r.seenByTable ?? {})) seen.inc({ pipeline: r.pipeline, table }, n);
      // Zero-valued series are created too, so a rate() over a pipeline that paid nothing reads 0, not "no data".
      tokens.inc({ pipeline: r.pipeline }, r.tokenUsage ?? 0);
      keptOut.inc({ pipeline: r.pipeline }, r.keptOut ?? 0);
      if (r.durationMs !== null) runDuration.observe({ pipeline: r.pipeline, status: r.status }, r.durationMs / 1000);
    },
    activityFinished(a) {
      if (LOAD_ACTIVITIES.has(a.activity))
        load.observe({ activity: a.activity, pipeline: a.pipeline, outcome: a.outcome }, a.seconds);
      else if (EXPORT_ACTIVITIES.has(a.activity))
        exportDuration.observe({ pipeline: a.pipeline, outcome: a.outcome }, a.seconds);
    },
    webhook: (event, status) => webhooks.inc({ event, status }),
    alertUndelivered: (event, reason) => undelivered.inc({ event, reason }),
    checkFailed: (c) => checkFailures.inc({ pipeline: c.pipeline, check: c.check, severity: c.severity }),
  };
}
