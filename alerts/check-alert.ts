// `check_failed` for checks evaluated without a run (up's freshness watch, `scrape-etl check --notify`), through the
// one alert delivery (alerts/deliver.ts).
import type { Database } from '../destinations/contract.js';
import type { Env, Settings } from '../settings/settings.js';
import { selectFailedChecks, type FailedCheckData } from '../checks/read.js';
import type { RunChecksOutput } from '../checks/run-checks.js';
import { withReadTransaction } from '../db/store/sql.js';
import type { PipelineSpec } from '../pipelines/spec.js';
import type { Metrics } from '../temporal/metrics.js';
import { alertWebhooks, deliverAlerts, webhookTarget, type Alert } from './deliver.js';
import { readNotifyConfig } from './notify-config.js';
import { jsonMessage, slackMessage, type RunFacts } from './notify-messages.js';

/**
 * Sends `check_failed` for checks evaluated without a run (freshness from a scheduler, `scrape-etl check
 * --notify`) to the pipeline's webhooks subscribed to it (else the environment's default webhook). One attempt per
 * webhook, with the Idempotency-Key `scrape-etl:<evaluation id>:check_failed`, under the shared answer policy
 * (webhook-post.ts: a 3xx is reported with its Location). With `db`, each accepted delivery is recorded in
 * notify_deliveries (keyed by the evaluation id) and one already recorded is not sent again, as run alerts do; with
 * `metrics`, attempts and failures are counted as run alerts' are. Returns what could not be sent.
 */
export async function sendCheckAlert(
  spec: PipelineSpec,
  out: RunChecksOutput & { workflowId: string },
  o: { env?: Settings | Env; now?: Date; db?: Database; metrics?: Pick<Metrics, 'webhook' | 'alertUndelivered'> } = {},
): Promise<{ sent: number; alreadySent: number; problems: string[] }> {
  const problems: string[] = [];
  if (!out.detail) return { sent: 0, alreadySent: 0, problems };
  const cfg = readNotifyConfig(o.env);
  const now = (o.now ?? new Date()).toISOString();
  // The failed checks as data: from check_results with their failing keys when the database is given, else from the
  // evaluation's own summary.
  const failedChecks: FailedCheckData[] = o.db
    ? await withReadTransaction(o.db, (tx) => selectFailedChecks(tx, out.workflowId))
    : out.results
        .filter((r) => r.status === 'fail' || r.status === 'error')
        .map((r) => ({
          name: r.name,
          type: r.type,
          severity: r.severity,
          status: r.status,
          observed: r.observed,
          threshold: r.threshold,
          failing_keys: null,
          message: r.message,
        }));
  const alerts: Alert[] = alertWebhooks(spec.notify, cfg)
    .filter(({ w }) => w.on.includes('check_failed'))
    .map((hook) => {
      const facts: RunFacts = {
        event: 'check_failed',
        detail: out.detail,
        pipeline: spec.name,
        kind: spec.kind,
        workflowId: out.workflowId,
        runId: out.workflowId,
        status: out.errorsFailed > 0 ? 'failed_checks' : 'succeeded',
        error: null,
        exportStatus: null,
        exportError: null,
        rowsByTable: {},
        seenByTable: null,
        startedAt: now,
        finishedAt: now,
        durationMs: 0,
        tokenUsage: null,
        webUiUrl: null,
        idempotencyKey: `scrape-etl:${out.workflowId}:check_failed`,
        failedChecks,
      };
      return {
        hook,
        key: {
          workflowId: out.workflowId,
          runId: out.workflowId,
          event: 'check_failed',
          target: webhookTarget(hook.w, hook.origin),
        },
        event: 'check_failed',
        idempotencyKey: facts.idempotencyKey,
        where: 'webhook',
        body: () => JSON.stringify(hook.w.format === 'slack' ? slackMessage(facts) : jsonMessage(facts)),
      };
    });
  const got = await deliverAlerts(alerts, { db: o.db, cfg, metrics: o.metrics ?? { webhook: () => {} } });
  for (const f of got.failures) {
    problems.push(f.host === undefined ? f.problem : `webhook ${f.host}: ${f.problem}`);
    o.metrics?.alertUndelivered('check_failed', f.reason);
  }
  const { sent, alreadySent } = got;
  return { sent, alreadySent, problems };
}
