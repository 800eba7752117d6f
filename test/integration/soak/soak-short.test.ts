// The chaos soak of `npm run soak` (soak/soak.ts), short: about 50 s of starts on SQLite, then on DuckDB, with the same faults,
// worker SIGKILLs and dev-server kill as the full one, then every invariant must hold. The full soak (10 minutes,
// SQLite, Postgres and DuckDB) is `npm run soak`; this keeps its code running and its invariants true in every test run.
import { describe, expect, it } from 'vitest';
import { formatInvariant, runSoak } from '../../../soak/soak.js';

/** 50 s of starts: with the finish phase that follows, CI stays within its time; the kills below still land. */
const DURATION_MS = 50_000;
/**
 * A run still open this long after the start phase (the last results sync: half of it after its own start) fails the
 * case with the open runs' report (soak/open-runs.ts) instead of a wait without end. The bound covers a create whose
 * answer a fault cut off, or whose worker was killed with it on its way: the scraper is looked for by name for
 * SCRAPE_ETL_CREATE_LOOKUP_SECONDS (120) before a create is sent again, and a run can meet that twice. 150 s failed
 * both cases of a clean-clone run, when a worker killed inside createAndRun also held its run for the activity's
 * 2-minute start-to-close (it beats on a clock since).
 */
const FINISH_TIMEOUT_MS = 360_000;
/** The case's own bound, from the soak's: starts, a start retried up to 60 s, both finish deadlines, setup and checks. */
const CASE_TIMEOUT_MS = DURATION_MS + 60_000 + 1.5 * FINISH_TIMEOUT_MS + 120_000;

describe('chaos soak (short)', () => {
  // SQLite, and DuckDB (issue #41: long-lived workers taking turns on one file, SIGKILLed while they hold it, and
  // an analyst's read-only Python session taking DuckDB's own lock now and then).
  for (const destination of ['sqlite', 'duckdb'] as const) {
    it(
      `${destination}: 50 s of all six kinds under 5xx/429/truncated answers, worker SIGKILLs and a dev-server kill: every invariant holds`,
      async () => {
        const report = await runSoak({
          destination,
          durationMs: DURATION_MS,
          // Kills every 10-25 s rather than 10-40 s, so workers die at least twice within the short window.
          killEveryMs: [10_000, 25_000],
          finishTimeoutMs: FINISH_TIMEOUT_MS,
          log: (line) => console.log(`[soak ${destination}] ${line}`),
        });
        const c = report.chaos;
        console.log(
          `soak ${destination} seed ${report.seed}: ${c.workerKills} worker kills, ${c.serverKills} server kills, ${c.faultsInjected}/${c.apiRequests} faulted requests, ${c.readerSessions} foreign read-only sessions`,
        );
        for (const inv of report.invariants) console.log(formatInvariant(inv));
        // The chaos really happened.
        expect(c.serverKills).toBe(1);
        expect(c.workerKills).toBeGreaterThanOrEqual(2);
        expect(c.faultsInjected).toBeGreaterThan(0);
        if (destination === 'duckdb') expect(c.readerSessions).toBeGreaterThan(0);
        for (const inv of report.invariants) {
          expect(inv.pass, `${formatInvariant(inv)}\n${inv.details.slice(0, 20).join('\n')}`).toBe(true);
        }
        // DuckDB's runs take turns on one file: with three integration files at a time one clean-clone run saw the DuckDB
        // case pass in 181 s and the next time out at 300 s before its runs had all finished, when the finish phase
        // still waited for them without a bound.
      },
      CASE_TIMEOUT_MS,
    );
  }
});
