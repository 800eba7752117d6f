// Freshness of the scheduled pipelines, evaluated by `scrape-etl up` itself (issue 28): a pipeline whose schedule
// silently stopped producing data has no run to evaluate its checks, so up evaluates its `freshness` checks every
// SCRAPE_ETL_UP_FRESHNESS_SECONDS (300) against the destination, records them in check_results (as `scrape-etl
// check --freshness` does), and on a check that turns from passing to failing says so on up's output and sends
// `check_failed` to the pipeline's webhooks once, not at every evaluation. A check that passes again re-arms it.
import fs from 'node:fs';
import type { Metrics } from '../temporal/metrics.js';
import type { PipelineSpec } from '../pipelines/spec.js';
import type { Database } from '../destinations/contract.js';

export class FreshnessWatch {
  /** `<pipeline>\u0001<check>` of the checks failing at the last evaluation: alerted already. */
  private readonly failing = new Set<string>();
  private last = 0;

  constructor(
    private readonly o: { metrics: Metrics; log(m: string): void; everyMs: number; env?: NodeJS.ProcessEnv },
  ) {}

  /** Evaluates when `everyMs` passed since the last evaluation (or on the first call). */
  async maybeEvaluate(specs: readonly PipelineSpec[], now = Date.now()): Promise<void> {
    if (now - this.last < this.o.everyMs) return;
    this.last = now;
    for (const spec of specs) await this.evaluateOne(spec);
  }

  /** The next maybeEvaluate waits `everyMs` from now (after an evaluation made with evaluateOne). */
  markEvaluated(now = Date.now()): void {
    this.last = now;
  }

  /**
   * One pipeline's freshness checks now, on `db` when the caller has its destination open already (not closed
   * here), else on a connection of its own. A destination that does not exist is not created.
   */
  async evaluateOne(spec: PipelineSpec, db?: Database): Promise<void> {
    if (!(spec.checks ?? []).some((c) => c.type === 'freshness')) return;
    try {
      await this.evaluate(spec, db);
    } catch (err) {
      this.o.log(`warning: the freshness of ${spec.name} could not be evaluated: ${(err as Error).message}`);
    }
  }

  private async evaluate(spec: PipelineSpec, open?: Database): Promise<void> {
    const { databaseFileOf, openDatabase, parseDatabaseUrl } = await import('../destinations/open.js');
    const { evaluateFreshness } = await import('../checks/run-checks.js');
    const { sendCheckAlert } = await import('../alerts/check-alert.js');
    const file = databaseFileOf(parseDatabaseUrl(spec.destination.database));
    // A destination no run has written yet: nothing is fresh, and that is what the check says; it needs the tables.
    if (!open && file !== undefined && !fs.existsSync(file)) {
      this.note(spec, [
        {
          name: 'freshness',
          failed: true,
          message: `its destination ${file} does not exist yet: no run has loaded anything`,
        },
      ]);
      return;
    }
    const db = open ?? (await openDatabase(spec.destination.database));
    try {
      const out = await evaluateFreshness(db, spec, { metrics: this.o.metrics });
      const results = out.results.map((r) => ({
        name: r.name,
        failed: r.status === 'fail' || r.status === 'error',
        message: r.message,
      }));
      const fresh = this.note(spec, results);
      if (fresh && out.detail) {
        // Recorded in notify_deliveries and counted in the metrics as run alerts are.
        const sent = await sendCheckAlert(spec, out, {
          ...(this.o.env ? { env: this.o.env } : {}),
          db,
          metrics: this.o.metrics,
        });
        for (const p of sent.problems) this.o.log(`warning: check_failed for ${spec.name} not delivered: ${p}`);
      }
    } finally {
      if (!open) await db.close();
    }
  }

  /** Logs checks that newly fail (and newly pass); true when any newly fails. */
  private note(spec: PipelineSpec, results: Array<{ name: string; failed: boolean; message: string }>): boolean {
    let newly = false;
    for (const r of results) {
      const key = `${spec.name}\u0001${r.name}`;
      if (r.failed && !this.failing.has(key)) {
        this.failing.add(key);
        newly = true;
        this.o.log(`warning: pipeline ${spec.name}: freshness check ${r.name} fails: ${r.message}`);
      } else if (!r.failed && this.failing.delete(key)) {
        this.o.log(`pipeline ${spec.name}: freshness check ${r.name} passes again`);
      }
    }
    return newly;
  }
}
