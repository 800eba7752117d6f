// `scrape-etl status [pipeline]`: recent pipeline runs, from the destination's pipeline_runs table (rows, errors),
// joined with what Temporal says about the runs of the same database when that matters: a run the table records as
// running (is it, right now?) or --live (also runs not in the table yet). A table of finished runs answers alone,
// without loading the Temporal SDK, so the command costs little more than its query (bench/startup.ts).
// Read-only: it never starts the embedded Temporal server (when that is not running, the table alone answers and
// the output says Temporal was not asked) and never creates a database. The pipeline, by file or by name
// (cli/resolve-pipeline.ts), names the database too.
import { EXIT } from '../../lib/exit-codes.js';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { Command } from '../../vendor/commander.js';
import { addDatabaseOption } from '../options.js';
import { PIPELINE_WORKFLOW_TYPE } from '../../temporal/contract.js';
import type { PipelineRef } from '../resolve-pipeline.js';
import { splitRows } from '../../db/model/table-names.js';
import { runStateName, runStateOf, runStateWithReason } from '../../lib/run-states.js';
import { keptOutText, keptOutValueText, statusWithKeptOut, tokensText } from '../../lib/run-figures.js';
import type { KeptOutValue } from '../../lib/kept-out.js';

export interface StatusRow {
  workflowId: string;
  pipeline: string;
  /**
   * The run's state as every surface names it (lib/run-states.ts): the outcome pipeline_runs recorded, else what
   * Temporal says of a run in progress or without a row; the same word whether Temporal was asked or not.
   */
  state: string;
  tableStatus: string | null;
  /** Data rows the run changed (inserted or updated; content and model tables), bookkeeping rows apart. */
  rows: number | null;
  /**
   * Data rows the run's responses held, changed or not: a run that fetched two unchanged products saw 2 and
   * changed 0. Null for runs recorded before it was counted, and for runs still going.
   */
  rowsSeen: number | null;
  seenByTable?: Record<string, number> | null;
  bookkeepingRows?: number | null;
  rowsByTable: Record<string, number> | null;
  startedAt: string | null;
  durationMs: number | null;
  /** A schedule's fire with no run (did_not_run): an event at firedAt, with no start, duration or workflow. */
  missedFire?: true;
  firedAt?: string | null;
  error: string | null;
  /**
   * The exports' own outcome ('succeeded', 'failed', or 'no_new_rows': incremental exports found nothing new and
   * wrote no file), null without exports or when unknown.
   */
  exportStatus?: 'succeeded' | 'no_new_rows' | 'failed' | null;
  /** The run's cost: the service's tokenUsage summed over its responses (null when none reported one). */
  tokenUsage: number | null;
  /** How the run's alerts ended: 'delivered', 'failed' (alertError says which and why), null when none were due. */
  alertStatus?: 'delivered' | 'failed' | null;
  alertError?: string | null;
  /** The run's data checks (check_results): how many, and the names of those that failed; absent without checks. */
  checks?: { total: number; failed: string[] };
  /** Why it ended as it did ('budget': a spend limit stopped its calls; lib/run-states.ts), absent when its state says it all. */
  statusReason?: string | null;
  /**
   * Values its loads kept out of their columns (pipeline_runs.kept_out: a timestamp that is not one, stored NULL):
   * the run still loaded what it could and keeps its state; null when not counted (older runs, runs going on).
   */
  keptOut?: number | null;
  /** The first few of them: table, column, the row's key, the value as sent, the raw_responses id holding it. */
  keptOutSample?: KeptOutValue[];
}

/** The STATE cell of `status` and the STATUS cell of `history`: the state, its reason, and what it kept out. */
export function stateCell(r: Pick<StatusRow, 'state' | 'keptOut'>): string {
  return statusWithKeptOut(r.state, r.keptOut);
}

/**
 * Lines under a table naming the values runs kept out (the first few of each), so the reader can find the rows:
 * `shop--a1: 3 values kept out: leads_results.created_at (id 3): "yesterday" (raw response 12) | …`.
 */
export function keptOutLines(
  rows: ReadonlyArray<Pick<StatusRow, 'workflowId' | 'keptOut' | 'keptOutSample'>>,
): string[] {
  return rows
    .filter((r) => (r.keptOut ?? 0) > 0)
    .map(
      (r) =>
        `${r.workflowId}: ${keptOutText(r.keptOut)}` +
        ((r.keptOutSample ?? []).length > 0 ? `: ${(r.keptOutSample ?? []).map(keptOutValueText).join(' | ')}` : ''),
    );
}

/** The error column: the data's error, then a failed export and an undelivered alert, each said beside it. */
export function runErrorText(
  r: {
    error: string | null;
    exportStatus?: string | null;
    exportError?: string | null;
    alertStatus?: string | null;
    alertError?: string | null;
  },
  maxPart = Infinity,
): string | null {
  const cut = (s: string) => (s.length > maxPart ? `${s.slice(0, maxPart - 1)}…` : s);
  const parts = [
    r.error,
    r.exportStatus === 'failed' ? `export failed: ${r.exportError ?? 'unknown error'}` : null,
    r.alertStatus === 'failed' ? `alert not delivered: ${r.alertError ?? 'unknown reason'}` : null,
  ]
    .filter((p): p is string => Boolean(p))
    .map((p) => cut(p.replace(/\s+/g, ' ')));
  return parts.length > 0 ? parts.join(' | ') : null;
}

export interface RunFilter {
  limit: number;
  pipeline?: string;
  since?: Date;
}

export async function tableRuns(
  databaseUrl: string,
  filter: RunFilter,
): Promise<Map<string, Omit<StatusRow, 'state'> & { finishedAt: string | null }>> {
  const { isMissedFire, selectPipelineRuns } = await import('../../db/store/pipeline-runs.js');
  const { selectChecksOfRuns } = await import('../../checks/read.js');
  const { readDestination } = await import('../read-destination.js');
  const { runs, checks } = await readDestination(databaseUrl, async (r) => {
    const runs = await selectPipelineRuns(r, filter);
    return {
      runs,
      checks: await selectChecksOfRuns(
        r,
        runs.map((x) => x.workflowId),
      ),
    };
  });
  const { goneLoadOwner, interruptedLoadError } = await import('../../db/store/orphaned-runs.js');
  const out = new Map<string, Omit<StatusRow, 'state'> & { finishedAt: string | null }>();
  for (const row of runs) {
    // A `load` whose process is gone left its row `running`: shown as the next load finalises it, as interrupted
    // (this command only reads; the row itself is finalised by the next load into this database).
    const gone = goneLoadOwner(row.workflowId, row.status);
    const r = gone === undefined ? row : { ...row, status: 'interrupted' as const, error: interruptedLoadError(gone) };
    const missed = isMissedFire(r.status);
    out.set(r.workflowId, {
      workflowId: r.workflowId,
      pipeline: r.pipeline,
      tableStatus: r.status,
      rows: r.rowsByTable ? splitRows(r.rowsByTable).data : null,
      rowsSeen: r.seenByTable ? splitRows(r.seenByTable).data : null,
      seenByTable: r.seenByTable,
      bookkeepingRows: r.rowsByTable ? splitRows(r.rowsByTable).bookkeeping : null,
      rowsByTable: r.rowsByTable,
      startedAt: missed ? null : r.startedAt || null,
      finishedAt: r.finishedAt,
      durationMs: !missed && r.startedAt && r.finishedAt ? Date.parse(r.finishedAt) - Date.parse(r.startedAt) : null,
      ...(missed ? { missedFire: true as const, firedAt: r.scheduledAt ?? r.startedAt ?? null } : {}),
      // The data's status stays the state; a failed export and an undelivered alert are said beside it.
      error: runErrorText(r),
      exportStatus: r.exportStatus,
      tokenUsage: r.tokenUsage,
      alertStatus: r.alertStatus,
      alertError: r.alertError,
      ...(r.statusReason ? { statusReason: r.statusReason } : {}),
      keptOut: r.keptOut,
      ...(r.keptOutSample.length > 0 ? { keptOutSample: r.keptOutSample } : {}),
      ...(checks.has(r.workflowId) ? { checks: checks.get(r.workflowId)! } : {}),
    });
  }
  return out;
}

/** The STARTED cell: a run's start, or a missed fire's fire time said as such (it started nothing). */
export function startedCell(r: Pick<StatusRow, 'startedAt' | 'missedFire' | 'firedAt'>): string {
  if (r.missedFire) return `missed fire ${(r.firedAt ?? '-').replace(/\.000Z$/, 'Z')}`;
  return r.startedAt ?? '-';
}

/** The ERROR cell of a table row: each problem (data, export, alert) shortened, so that none hides the next. */
export function errorCell(error: string | null): string {
  if (!error) return '';
  const parts = error.replace(/\s+/g, ' ').split(' | ');
  return parts
    .map((p) => (p.length > 80 ? `${p.slice(0, 79)}…` : p))
    .join(' | ')
    .slice(0, 260);
}

/** Temporal states of a run that ended without its result; each has a failure (or a reason) in its close event. */
const FAILED_STATES = new Set(['FAILED', 'TERMINATED', 'TIMED_OUT', 'CANCELLED']);

/**
 * Why a closed run failed, read from Temporal: for a run whose pipeline_runs row is missing (another destination,
 * a failure before the workflow's bookkeeping) or has no error (the workflow ended before it could write one).
 * A closed run's result() answers at once from the close event, as the failure `run` printed.
 */
async function temporalFailure(client: Client, workflowId: string, runId: string): Promise<string> {
  const { failureReason } = await import('../pipeline-runner.js');
  try {
    await client.withDeadline(Date.now() + 10_000, () => client.workflow.getHandle(workflowId, runId).result());
    return 'the workflow ended without a result';
  } catch (err) {
    const { WorkflowFailedError } = await import('@temporalio/client');
    if (err instanceof WorkflowFailedError) return failureReason(err);
    return `the failure could not be read from Temporal: ${(err as Error).message}`;
  }
}

/**
 * The destination a run in Temporal writes to, as recorded: its ScrapeEtlDestination search attribute, else its
 * memo (a namespace without the attribute registered), else undefined (a run from before either was recorded).
 */
function recordedDestination(w: WorkflowExecutionInfo, attribute: string | undefined): string | undefined {
  if (attribute !== undefined) return attribute;
  const memo = w.memo?.['destination'];
  return typeof memo === 'string' ? memo : undefined;
}

/** '7d', '12h', '30m' back from now. */
export function sinceDate(text: string | undefined, now = Date.now()): Date | undefined {
  if (text === undefined) return undefined;
  const m = /^([0-9]+)(m|h|d|w)$/.exec(text.trim());
  if (!m)
    throw Object.assign(new Error(`--since '${text}' is not a duration like '30m', '12h', '7d' or '2w'`), {
      exitCode: EXIT.usage,
    });
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2] as 'm' | 'h' | 'd' | 'w'];
  return new Date(now - Number(m[1]) * unit);
}

/** An export status as a person reads it in a table. */
export function formatExportStatus(status: StatusRow['exportStatus']): string {
  if (status === 'no_new_rows') return 'no new rows';
  return status ?? '-';
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 1000) return `${ms}ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)}s`;
  return `${Math.round(ms / 60_000)}m`;
}

/**
 * The database and pipeline a reading command is about: --database wins; else the pipeline's destination (a file,
 * or a name found through the project); else DATABASE_URL (the project's destination), else the default file.
 */
export async function readTarget(
  pipeline: string | undefined,
  database: string | undefined,
): Promise<{ databaseUrl: string; ref: PipelineRef | undefined }> {
  const { defaultDatabaseUrl, resolvePipelineRef } = await import('../resolve-pipeline.js');
  const ref = pipeline === undefined ? undefined : await resolvePipelineRef(pipeline);
  return { databaseUrl: database ?? ref?.database ?? defaultDatabaseUrl(), ref };
}

export function register(program: Command): void {
  const cmd = program
    .command('status')
    .description(
      'recent pipeline runs: pipeline, state, rows, duration, tokens (cost), error (from pipeline_runs, and Temporal for runs in progress)',
    )
    .argument(
      '[pipeline]',
      "only this pipeline's runs, in its destination: a pipeline file, or a pipeline name of the project",
    );
  addDatabaseOption(
    cmd,
    "destination database to read pipeline_runs from (default: the pipeline's destination, else DATABASE_URL, the project's destination or sqlite:./data/scrape-etl.sqlite)",
  )
    .option('--limit <n>', 'how many runs', (v) => Number.parseInt(v, 10), 20)
    .option('--pipeline <name>', 'the same as the [pipeline] argument')
    .option('--since <duration>', "only runs started in this span back from now: '30m', '12h', '7d', '2w'")
    .option(
      '--live',
      'ask Temporal about every run, including those not in pipeline_runs yet (default: only when a run is in progress)',
    )
    .option('--no-temporal', 'read only the pipeline_runs table')
    .option('--json', 'one JSON object per run')
    .option('-v, --verbose', 'more logs (stderr)')
    .action(
      async (
        arg: string | undefined,
        flags: {
          database?: string;
          limit: number;
          pipeline?: string;
          since?: string;
          live?: boolean;
          temporal: boolean;
          json?: boolean;
          verbose?: boolean;
        },
      ) => {
        // Loaded here, not at the top, so that registering the command for --help stays cheap (see cli/main.ts).
        const { redactDatabaseUrl } = await import('../../db/model/url.js');
        if (!Number.isInteger(flags.limit) || flags.limit <= 0) {
          throw Object.assign(new Error('--limit must be a positive integer'), { exitCode: EXIT.usage });
        }
        if (arg !== undefined && flags.pipeline !== undefined && arg !== flags.pipeline) {
          throw Object.assign(new Error(`two pipelines named: '${arg}' and --pipeline '${flags.pipeline}'; name one`), {
            exitCode: EXIT.usage,
          });
        }
        const { databaseUrl, ref } = await readTarget(arg ?? flags.pipeline, flags.database);
        const pipelineName = ref?.name;
        const since = sinceDate(flags.since);
        const filter: RunFilter = {
          limit: flags.limit,
          ...(pipelineName ? { pipeline: pipelineName } : {}),
          ...(since ? { since } : {}),
        };
        // Debug lines only: pino is loaded when they show (-v, SCRAPE_ETL_LOG_LEVEL), not on every status.
        const { logsAt } = await import('../log-level.js');
        const log = logsAt('debug', flags)
          ? (await import('../logger.js')).createLogger({ verbose: flags.verbose ?? false })
          : undefined;
        const { databaseFile } = await import('../read-destination.js');
        const file = databaseFile(databaseUrl);
        const fs = await import('node:fs');
        if (ref?.file !== undefined && file !== undefined && !fs.existsSync(file)) {
          // A pipeline of the project that never ran: its database is created by its first run.
          process.stdout.write(
            `no runs of '${ref.name}' yet: its database ${redactDatabaseUrl(databaseUrl)} does not exist (its first run creates it)\n`,
          );
          return;
        }
        if (ref?.note)
          log?.debug({ note: ref.note }, 'pipeline name not found in the project; reading the default database');
        const fromTable = await tableRuns(databaseUrl, filter);
        log?.debug({ database: redactDatabaseUrl(databaseUrl), runs: fromTable.size }, 'read pipeline_runs');
        const rows = new Map<string, StatusRow>();
        for (const [id, r] of fromTable)
          rows.set(id, { ...r, state: runStateWithReason(runStateOf(r.tableStatus), r.statusReason) });
        // Temporal is asked (and its SDK loaded) only when its answer can change what is shown: a run in progress.
        const inProgress = [...fromTable.values()].some((r) => r.tableStatus === 'running');
        const askTemporal = flags.temporal && (flags.live === true || inProgress);

        // Why Temporal's view is missing, when it is: said with the answer, so table states are not taken for live ones.
        let notAsked: string | undefined;
        if (askTemporal) {
          const { destinationKey } = await import('../../db/model/url.js');
          const { connectRunningTemporal } = await import('../../temporal/connect.js');
          const { temporalSettings } = await import('../../temporal/settings.js');
          const found = await connectRunningTemporal(temporalSettings());
          if ('notAsked' in found) {
            notAsked = found.notAsked;
            log?.debug({ reason: notAsked }, 'Temporal not asked');
          } else {
            const { client, connection } = found.conn;
            const { SEARCH_ATTRIBUTES } = await import('../../temporal/visibility.js');
            const wanted = destinationKey(databaseUrl);
            try {
              let n = 0;
              let listed = 0;
              const query = `WorkflowType = '${PIPELINE_WORKFLOW_TYPE}'${since ? ` AND StartTime >= '${since.toISOString()}'` : ''}`;
              log?.debug(
                { address: found.conn.address, namespace: found.conn.namespace, query },
                'listing workflows in Temporal',
              );
              for await (const w of client.workflow.list({ query })) {
                listed++;
                // Workflow ids are '<pipeline>--<run key>' (temporal/contract.ts): the pipeline filter needs no search attribute.
                if (pipelineName && !w.workflowId.startsWith(`${pipelineName}--`)) continue;
                const known = rows.get(w.workflowId);
                // Only this database's runs: those its pipeline_runs knows, and those Temporal records as writing to it
                // (a run that has not written its row yet). A run recording no destination cannot be told apart: left out.
                // Recorded relative SQLite paths (older runs) are resolved against this folder, as the user's --database is.
                const recorded = recordedDestination(w, w.typedSearchAttributes.get(SEARCH_ATTRIBUTES.destination));
                if (!known && (recorded === undefined || destinationKey(recorded) !== wanted)) continue;
                if (n++ >= flags.limit) break;
                const started = w.startTime.toISOString();
                const duration = w.closeTime
                  ? w.closeTime.getTime() - w.startTime.getTime()
                  : Date.now() - w.startTime.getTime();
                rows.set(w.workflowId, {
                  workflowId: w.workflowId,
                  pipeline: known?.pipeline ?? w.workflowId.split('--')[0] ?? w.workflowId,
                  state: runStateName(runStateOf(known?.tableStatus, w.status.name)),
                  tableStatus: known?.tableStatus ?? null,
                  rows: known?.rows ?? null,
                  rowsSeen: known?.rowsSeen ?? null,
                  rowsByTable: known?.rowsByTable ?? null,
                  startedAt: known?.startedAt ?? started,
                  durationMs: known?.durationMs ?? duration,
                  tokenUsage: known?.tokenUsage ?? null,
                  ...(known ? { keptOut: known.keptOut ?? null } : {}),
                  ...(known?.keptOutSample ? { keptOutSample: known.keptOutSample } : {}),
                  ...(known?.exportStatus !== undefined ? { exportStatus: known.exportStatus } : {}),
                  ...(known
                    ? {
                        bookkeepingRows: known.bookkeepingRows,
                        alertStatus: known.alertStatus ?? null,
                        alertError: known.alertError ?? null,
                      }
                    : {}),
                  error:
                    known?.error ||
                    (FAILED_STATES.has(w.status.name) ? await temporalFailure(client, w.workflowId, w.runId) : null),
                });
              }
              log?.debug(
                { listed, shown: Math.min(n, flags.limit) },
                'workflows listed; those of other destinations are left out',
              );
            } finally {
              await connection.close();
            }
          }
        }
        const note =
          notAsked === undefined
            ? undefined
            : `Temporal was not asked: ${notAsked}; the states shown are those pipeline_runs recorded`;

        // Newest first. ISO times compare as plain strings; localeCompare would start ICU's collator for it, a start-up cost.
        const at = (r: StatusRow) => r.startedAt ?? r.firedAt ?? '';
        const byStart = (a: StatusRow, b: StatusRow) => (at(b) < at(a) ? -1 : at(b) > at(a) ? 1 : 0);
        const list = [...rows.values()].sort(byStart).slice(0, flags.limit);
        if (flags.json) {
          for (const r of list) process.stdout.write(`${JSON.stringify(r)}\n`);
          // stdout stays one run per line; the note goes beside it.
          if (note) process.stderr.write(`${note}\n`);
          return;
        }
        if (list.length === 0) {
          process.stdout.write(
            `no pipeline runs${pipelineName ? ` of '${pipelineName}'` : ''}${flags.since ? ` in the last ${flags.since}` : ''} in ${redactDatabaseUrl(databaseUrl)}\n`,
          );
          if (note) process.stdout.write(`${note}\n`);
          return;
        }
        const table = [
          // Rows seen (fetched) beside rows changed (inserted, updated): unchanged data is not "0 rows".
          [
            'PIPELINE',
            'STATE',
            'ROWS SEEN',
            'ROWS CHANGED',
            'BOOKKEEPING',
            'DURATION',
            'TOKENS',
            'EXPORT',
            'STARTED',
            'WORKFLOW ID',
            'ERROR',
          ],
          ...list.map((r) => [
            r.pipeline,
            stateCell(r),
            r.rowsSeen === null ? '-' : String(r.rowsSeen),
            r.rows === null ? '-' : String(r.rows),
            r.bookkeepingRows === null || r.bookkeepingRows === undefined ? '-' : String(r.bookkeepingRows),
            formatDuration(r.durationMs),
            // A missed fire ran nothing: no tokens to know.
            r.missedFire ? '-' : tokensText(r.tokenUsage),
            formatExportStatus(r.exportStatus),
            startedCell(r),
            r.workflowId,
            r.error
              ? errorCell(r.error)
              : r.checks && r.checks.failed.length > 0
                ? `checks failed: ${r.checks.failed.join(', ')}`.slice(0, 120)
                : '',
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
        for (const line of keptOutLines(list)) process.stdout.write(`${line}\n`);
        if (note) process.stdout.write(`${note}\n`);
      },
    );
}
