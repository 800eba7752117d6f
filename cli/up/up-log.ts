// `scrape-etl up`'s log lines: one line per event, with its time, as an operator tails it (`up --detach` writes
// them to its log file). The Temporal SDK's own log entries (a warning an activity logs through Context.log, the
// native core's) arrive with the activity's whole context as an object, task token included: here they become one
// sentence with the facts that say what happened and where (pipeline, run, activity), never the token.
import { rowsSeenChangedText, statusWithKeptOut } from '../../lib/run-figures.js';
import type { RunEvent } from '../../activities/deps.js';
import { runRowTotals } from '../../db/model/table-names.js';

/** Meta keys the SDK adds to every entry of an activity or workflow: said as "where", or not at all. */
const SDK_CONTEXT = new Set([
  'sdkComponent',
  'taskQueue',
  'isLocal',
  'attempt',
  'namespace',
  'activityId',
  'activityType',
  'workflowId',
  'workflowRunId',
  'runId',
  'workflowType',
  'pipeline',
]);
const MAX_LINE = 1000;

/** Text on one line: newlines and runs of blanks become one space; a very long text is cut with an ellipsis. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_LINE ? `${flat.slice(0, MAX_LINE - 1)}…` : flat;
}

function factText(v: unknown): string | undefined {
  if (v instanceof Error) return v.message;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** An SDK log entry as one line: `warning: checks failed: <detail> (pipeline p, run <id>, activity evaluateRunChecks)`. */
export function sdkLogLine(level: string, message: string, meta: Record<string, unknown> | undefined): string {
  const m = meta ?? {};
  const word = level === 'ERROR' ? 'error' : level === 'WARN' ? 'warning' : level.toLowerCase();
  const facts: string[] = [];
  for (const [k, v] of Object.entries(m)) {
    // A task token lets whoever holds it complete the activity: never written anywhere.
    if (SDK_CONTEXT.has(k) || /token/i.test(k)) continue;
    const text = factText(v);
    if (text === undefined || text === '') continue;
    facts.push(k === 'detail' || k === 'error' || k === 'err' || k === 'failure' ? text : `${k} ${text}`);
  }
  const attempt = typeof m['attempt'] === 'number' && m['attempt'] > 1 ? ` attempt ${m['attempt']}` : '';
  const where = [
    typeof m['pipeline'] === 'string' ? `pipeline ${m['pipeline']}` : undefined,
    typeof m['workflowId'] === 'string' ? `run ${m['workflowId']}` : undefined,
    typeof m['activityType'] === 'string'
      ? `activity ${m['activityType']}${attempt}`
      : typeof m['workflowType'] === 'string'
        ? `workflow ${m['workflowType']}`
        : undefined,
  ].filter((x): x is string => x !== undefined);
  return oneLine(
    `${word}: ${message}${facts.length > 0 ? `: ${facts.join('; ')}` : ''}${where.length > 0 ? ` (${where.join(', ')})` : ''}`,
  );
}

function durationText(ms: number | null): string {
  if (ms === null) return 'duration unknown';
  return ms < 120_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.round(ms / 60_000)}m`;
}

/**
 * `run started: shop run shop--<key>` / `run ended: shop run shop--<key> succeeded, 2 rows seen, 0 changed, 3.1s`
 * (`succeeded, 3 values kept out, 2 rows seen, …` when its loads stored values NULL).
 */
export function runEventLine(e: RunEvent): string {
  if (e.event === 'started') return `run started: ${e.pipeline} run ${e.workflowId}`;
  const totals = runRowTotals(e.rowsByTable, e.seenByTable);
  const rows = rowsSeenChangedText(totals.changed, totals.seen);
  const why = e.error ? `: ${e.error}` : '';
  return oneLine(
    `run ended: ${e.pipeline} run ${e.workflowId} ${statusWithKeptOut(e.status, e.keptOut)}, ${rows}, ${durationText(e.durationMs)}${why}`,
  );
}
