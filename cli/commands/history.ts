// `scrape-etl history <pipeline>`: the last N runs of one pipeline from its destination's pipeline_runs, with what
// an operator compares run to run: status, rows (and per table), duration, tokens (cost), exports, error. It
// reads the table only (no Temporal, no server started), so it answers at once.
import { EXIT } from '../../lib/exit-codes.js';
import type { Command } from '../../vendor/commander.js';
import { addDatabaseOption } from '../options.js';
import type { DataOutcome } from '../../lib/run-states.js';

export function register(program: Command): void {
  const cmd = program
    .command('history')
    .description(
      'the last runs of one pipeline: status, rows per table, duration, tokens (cost), exports, error (from pipeline_runs)',
    )
    .argument('<pipeline>', 'a pipeline file, or a pipeline name (found through the project, scrape-etl.yaml)');
  addDatabaseOption(
    cmd,
    "destination database (default: the pipeline's destination, else DATABASE_URL, the project's destination or sqlite:./data/scrape-etl.sqlite)",
  )
    .option('--limit <n>', 'how many runs', (v) => Number.parseInt(v, 10), 10)
    .option('--since <duration>', "only runs started in this span back from now: '30m', '12h', '7d', '2w'")
    .option('--json', 'one JSON object per run')
    .action(async (arg: string, flags: { database?: string; limit: number; since?: string; json?: boolean }) => {
      // Loaded here, not at the top, so that registering the command for --help stays cheap (see cli/main.ts).
      const { redactDatabaseUrl } = await import('../../db/model/url.js');
      const {
        errorCell,
        formatDuration,
        formatExportStatus,
        keptOutLines,
        readTarget,
        sinceDate,
        startedCell,
        tableRuns,
      } = await import('./status.js');
      const { orderedRows } = await import('../../db/model/table-names.js');
      const { runStateOf, runStateWithReason } = await import('../../lib/run-states.js');
      const { keptOutText, statusWithKeptOut, tokensText, tokensTotalText } = await import('../../lib/run-figures.js');
      if (!Number.isInteger(flags.limit) || flags.limit <= 0)
        throw Object.assign(new Error('--limit must be a positive integer'), { exitCode: EXIT.usage });
      const { databaseUrl, ref } = await readTarget(arg, flags.database);
      const pipeline = ref!.name;
      const { databaseFile } = await import('../read-destination.js');
      const file = databaseFile(databaseUrl);
      const fs = await import('node:fs');
      if (ref?.file !== undefined && file !== undefined && !fs.existsSync(file)) {
        process.stdout.write(
          `no runs of '${pipeline}' yet: its database ${redactDatabaseUrl(databaseUrl)} does not exist (its first run creates it)\n`,
        );
        return;
      }
      const since = sinceDate(flags.since);
      const runs = [
        ...(await tableRuns(databaseUrl, { limit: flags.limit, pipeline, ...(since ? { since } : {}) })).values(),
      ];
      if (flags.json) {
        for (const r of runs) process.stdout.write(`${JSON.stringify(r)}\n`);
        return;
      }
      if (runs.length === 0) {
        process.stdout.write(
          `no runs of '${pipeline}'${flags.since ? ` in the last ${flags.since}` : ''} in ${redactDatabaseUrl(databaseUrl)}\n`,
        );
        return;
      }
      const table = [
        // Data rows seen (fetched) and changed (inserted, updated); the service's bookkeeping rows (scrapers, their
        // runs) apart. ROWS BY TABLE: rows changed.
        [
          'STARTED',
          'STATUS',
          'ROWS SEEN',
          'ROWS CHANGED',
          'BOOKKEEPING',
          'DURATION',
          'TOKENS',
          'EXPORT',
          'WORKFLOW ID',
          'ROWS BY TABLE / ERROR',
        ],
        ...runs.map((r) => [
          startedCell(r),
          statusWithKeptOut(runStateWithReason(runStateOf(r.tableStatus), r.statusReason), r.keptOut),
          r.rowsSeen === null ? '-' : String(r.rowsSeen),
          r.rows === null ? '-' : String(r.rows),
          r.bookkeepingRows === null || r.bookkeepingRows === undefined ? '-' : String(r.bookkeepingRows),
          formatDuration(r.durationMs),
          // A missed fire ran nothing: no tokens to know.
          r.missedFire ? '-' : tokensText(r.tokenUsage),
          formatExportStatus(r.exportStatus),
          r.workflowId,
          r.error
            ? errorCell(r.error)
            : r.checks && r.checks.failed.length > 0
              ? `warn checks failed: ${r.checks.failed.join(', ')}`.slice(0, 120)
              : orderedRows(r.rowsByTable ?? {})
                  .map(([t, n]) => `${t}=${n}`)
                  .join(' '),
        ]),
      ];
      const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
      for (const row of table)
        process.stdout.write(
          `${row
            .map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!)))
            .join('  ')
            .trimEnd()}\n`,
        );
      for (const line of keptOutLines(runs)) process.stdout.write(`${line}\n`);
      const keptOut = runs.reduce((n, r) => n + (r.keptOut ?? 0), 0);
      const done = runs.filter((r) => r.durationMs !== null);
      // A schedule's fire with no run (`scrape-etl up`'s did_not_run) is an event, counted apart from the runs.
      const missed = runs.filter((r) => r.missedFire).length;
      const count = (state: string) => runs.filter((r) => r.tableStatus === state).length;
      // The states' ids (lib/run-states.ts), as webhooks and metrics say them; the STATUS column prints their names.
      const tally = (state: DataOutcome) => `${count(state)} ${state}`;
      process.stdout.write(
        `${runs.length - missed} run(s): ${tally('succeeded')}, ${tally('partial')}, ` +
          // Said only when there are some: pipelines without checks keep the line they had.
          (count('failed_checks') > 0 ? `${tally('failed_checks')}, ` : '') +
          `${tally('failed')}; ` +
          (missed > 0 ? `${missed} missed fire${missed === 1 ? '' : 's'}; ` : '') +
          `median duration ${formatDuration(median(done.map((r) => r.durationMs!)))}; ${tokensTotalText(runs.filter((r) => !r.missedFire).map((r) => r.tokenUsage))}` +
          (keptOut > 0 ? `; ${keptOutText(keptOut)}` : '') +
          '\n',
      );
    });
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
}
