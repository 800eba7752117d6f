// The one alert delivery. Every alert goes out through deliverAlerts, whoever sends it: a run's alerts
// (activities/notify.ts), its watch events (activities/checks.ts), check alerts without a run (alerts/check-alert.ts:
// `scrape-etl check --notify`, up's freshness watch) and up's did_not_run for a missed schedule fire
// (monitor/missed-fires.ts). It holds the bookkeeping they share: which webhooks hear a pipeline's alerts, a
// delivery already accepted is not sent again (notify_deliveries: looked up before, recorded after a 2xx), the
// webhook URL's ${VAR} expansion, the answer policy (webhook-post.ts), the attempts metric, and the bound in time.
// Callers keep only what differs: the message, and what a failure then means (a retryable Temporal activity
// failure, or the outcome recorded on the run's row).
import type { Database } from '../destinations/contract.js';
import { hexDigest } from '../db/model/hash.js';
import { recordDelivery, wasDelivered, type DeliveryKey } from '../db/store/notify-deliveries.js';
import type { NotifySpec, NotifyWebhookSpec } from '../pipelines/spec.js';
import type { Metrics } from '../temporal/metrics.js';
import { expandWebhookUrl, type NotifyConfig } from './notify-config.js';
import { deliverWebhook, type DeliveryFailureReason } from './webhook-post.js';

export type WebhookOrigin = 'pipeline' | 'worker';

/** A webhook that may hear a pipeline's alerts; `n` its place in its list (notify.webhooks[n - 1]), as messages name it. */
export interface AlertWebhook {
  w: NotifyWebhookSpec;
  n: number;
  origin: WebhookOrigin;
}

/** Identifies a webhook without its URL's value: a hash of its template and format. */
export function webhookTarget(w: NotifyWebhookSpec, origin: WebhookOrigin): string {
  return hexDigest('sha256', `${origin}\n${w.format}\n${w.url}`).slice(0, 16);
}

/** The pipeline's webhooks, or when it names none the worker's default ones (SCRAPE_ETL_NOTIFY_URL). */
export function alertWebhooks(
  notify: NotifySpec | undefined,
  cfg: Pick<NotifyConfig, 'defaultWebhooks'>,
): AlertWebhook[] {
  const fromPipeline = (notify?.webhooks ?? []).length > 0;
  return fromPipeline
    ? notify!.webhooks.map((w, i) => ({ w, n: i + 1, origin: 'pipeline' as const }))
    : cfg.defaultWebhooks.map((w, i) => ({ w, n: i + 1, origin: 'worker' as const }));
}

/** Backoff between attempts: Temporal's retry policy of the notify activity (workflows/alerts.ts) and in-process attempts. */
export const NOTIFY_RETRY = { initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 30_000 } as const;

/** The pause after attempt `attempt` fails (NOTIFY_RETRY). */
export function delayAfterAttempt(attempt: number): number {
  return Math.min(
    NOTIFY_RETRY.maximumIntervalMs,
    NOTIFY_RETRY.initialIntervalMs * NOTIFY_RETRY.backoffCoefficient ** Math.max(0, attempt - 1),
  );
}

/** One alert for one webhook. */
export interface Alert {
  hook: AlertWebhook;
  /** Its row in notify_deliveries once accepted. */
  key: DeliveryKey;
  /** The event as the X-Scrape-ETL-Event header and the metrics' label say it. */
  event: string;
  idempotencyKey: string;
  /** How messages name the webhook: 'webhook #2 (pipeline, slack, event failed)'. */
  where: string;
  /** The body, built only when the alert is sent. */
  body(): string;
}

export interface AlertFailure {
  alert: Alert;
  reason: DeliveryFailureReason;
  /** Worth another attempt later (a 5xx, a timeout), or not (a 4xx, a redirect, a URL that cannot be expanded). */
  retryable: boolean;
  /** The receiver's host; absent when the URL could not be expanded. */
  host?: string;
  /** What happened, without the URL. */
  problem: string;
  /** `<where>: <problem>` or `<where> to <host>: <problem>`. */
  text: string;
}

export interface DeliverOptions {
  /** The destination holding notify_deliveries; undefined: deliveries go out unrecorded (at-least-once). */
  db: Database | undefined;
  cfg: Pick<NotifyConfig, 'env' | 'timeoutMs'>;
  metrics: Pick<Metrics, 'webhook'>;
  /** Epoch ms by which the deliveries end (bounded alerts): one not started 500 ms before is reported, not sent. */
  deadline?: number;
  /** Attempts per alert in this call, NOTIFY_RETRY apart, for senders without Temporal's retries; default 1. */
  attempts?: number;
  heartbeat?(i: number): void;
  signal?: AbortSignal;
  /** A notify_deliveries read or write that failed: without this it is thrown; with it the alert goes on unrecorded. */
  onBookkeepingError?(what: 'read' | 'record', err: Error): void;
}

export interface DeliverOutcome {
  sent: number;
  alreadySent: number;
  failures: AlertFailure[];
  /** The most attempts one failed alert took in this call. */
  attemptsMax: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Sends each alert not yet delivered, records the accepted ones, and says what was not delivered. */
export async function deliverAlerts(alerts: readonly Alert[], o: DeliverOptions): Promise<DeliverOutcome> {
  const out: DeliverOutcome = { sent: 0, alreadySent: 0, failures: [], attemptsMax: 1 };
  const bookkeeping = async <T>(what: 'read' | 'record', f: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      if (!o.onBookkeepingError) throw err;
      o.onBookkeepingError(what, err as Error);
      return fallback;
    }
  };
  const maxAttempts = Math.max(1, o.attempts ?? 1);
  for (const [i, a] of alerts.entries()) {
    const db = o.db;
    if (db && (await bookkeeping('read', () => wasDelivered(db, a.key), false))) {
      out.alreadySent++;
      continue;
    }
    o.heartbeat?.(i);
    const expanded = expandWebhookUrl(a.hook.w.url, o.cfg.env);
    if ('problem' in expanded) {
      out.failures.push({
        alert: a,
        reason: 'config',
        retryable: false,
        problem: expanded.problem,
        text: `${a.where}: ${expanded.problem}`,
      });
      continue;
    }
    const host = expanded.url.host;
    const body = a.body();
    for (let attempt = 1; ; attempt++) {
      const left = o.deadline === undefined ? Infinity : o.deadline - Date.now();
      if (left < 500) {
        const problem = 'not attempted, the time for alerts ran out';
        out.failures.push({
          alert: a,
          reason: 'timeout',
          retryable: true,
          host,
          problem,
          text: `${a.where} to ${host}: ${problem}`,
        });
        break;
      }
      const got = await deliverWebhook({
        url: expanded.url,
        event: a.event,
        idempotencyKey: a.idempotencyKey,
        body,
        timeoutMs: Math.max(1, Math.min(o.cfg.timeoutMs, left)),
        signal: o.signal,
      });
      o.metrics.webhook(a.event, got.ok ? String(got.status) : got.status);
      if (got.ok) {
        out.sent++;
        if (db) await bookkeeping('record', () => recordDelivery(db, { ...a.key, httpStatus: got.status }), undefined);
        break;
      }
      if (!got.retryable || attempt >= maxAttempts) {
        out.attemptsMax = Math.max(out.attemptsMax, attempt);
        out.failures.push({
          alert: a,
          reason: got.reason,
          retryable: got.retryable,
          host,
          problem: got.text,
          text: `${a.where} to ${host}: ${got.text}`,
        });
        break;
      }
      await sleep(delayAfterAttempt(attempt));
    }
  }
  return out;
}
