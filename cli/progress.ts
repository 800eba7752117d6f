/**
 * Shows a running workflow's `progress` query to the user: a cli-progress bar on a TTY, otherwise one plain line
 * per change, or one JSON object per change with --json (for scripts and CI logs).
 */
import cliProgress from 'cli-progress';
import { processIO, type CommandIO } from './io.js';
import { describeWaiting, type WaitingNote } from './waiting.js';

/** What the workflow's `progress` query answers; fields are optional so older or newer workflows still show. */
export interface ProgressSnapshot {
  phase?: string;
  done?: number;
  total?: number;
  rows?: number;
  [key: string]: unknown;
}

export type ProgressMode = 'bar' | 'lines' | 'json';

export interface ProgressReporter {
  update(p: ProgressSnapshot): void;
  /** The run completed: a bar is filled and stopped; lines and JSON add nothing (the summary that follows says it). */
  finish(): void;
  stop(): void;
}

export function progressMode(opts: { json?: boolean }, stream: { isTTY?: boolean } = process.stderr): ProgressMode {
  if (opts.json) return 'json';
  return stream.isTTY ? 'bar' : 'lines';
}

function totalRows(p: ProgressSnapshot): number | undefined {
  if (typeof p.rows === 'number') return p.rows;
  const byTable = p['rowsByTable'] ?? p['rows_by_table'];
  if (byTable && typeof byTable === 'object') {
    return Object.values(byTable as Record<string, unknown>).reduce<number>(
      (s, v) => s + (typeof v === 'number' ? v : 0),
      0,
    );
  }
  return undefined;
}

/** The snapshot's waiting note (cli/waiting.ts), as carried in JSON (nextAttemptAt an ISO time). */
function waitingNote(p: ProgressSnapshot): WaitingNote | undefined {
  const w = p['waiting'] as
    { reason?: unknown; attempt?: unknown; nextAttemptAt?: unknown; expected?: unknown } | undefined;
  if (!w || typeof w.reason !== 'string' || typeof w.attempt !== 'number') return undefined;
  return {
    reason: w.reason,
    attempt: w.attempt,
    nextAttemptAt: typeof w.nextAttemptAt === 'string' ? Date.parse(w.nextAttemptAt) : null,
    expected: w.expected === true,
  };
}

/** One line of progress; `countdown: false` leaves the retry's countdown out (what decides whether a line is new). */
export function describeProgress(p: ProgressSnapshot, opts: { countdown?: boolean; now?: number } = {}): string {
  const now = opts.countdown === false ? undefined : (opts.now ?? Date.now());
  const parts = [p.phase ?? 'running'];
  if (typeof p.done === 'number' && typeof p.total === 'number') parts.push(`${p.done}/${p.total}`);
  const rows = totalRows(p);
  if (rows !== undefined) parts.push(`${rows} rows`);
  const w = waitingNote(p);
  if (w)
    parts.push(
      `| ${now === undefined ? `${w.reason}${w.attempt > 0 ? ` #${w.attempt}` : ''}` : describeWaiting(w, now)}`,
    );
  return parts.join(' ');
}

/**
 * Counts as shown never go down: the workflow's figures are summed from activity reports (a retried batch can be
 * reported twice, then a later figure is lower), and a display that goes 110 rows, then 109, reads as data lost.
 */
function monotonic(): (p: ProgressSnapshot) => ProgressSnapshot {
  let rows = 0;
  let done = 0;
  return (p) => {
    const out: ProgressSnapshot = { ...p };
    const r = totalRows(p);
    if (r !== undefined) out.rows = rows = Math.max(rows, r);
    if (typeof p.done === 'number') out.done = done = Math.max(done, p.done);
    return out;
  };
}

export function createProgressReporter(
  mode: ProgressMode,
  workflowId: string,
  io: CommandIO = processIO,
): ProgressReporter {
  let last = '';
  const steady = monotonic();
  if (mode === 'json') {
    return {
      update(raw) {
        const p = steady(raw);
        const line = JSON.stringify({ type: 'progress', workflowId, ...p });
        if (line !== last) io.stdout.write(`${line}\n`);
        last = line;
      },
      finish() {},
      stop() {},
    };
  }
  if (mode === 'lines') {
    return {
      update(raw) {
        const p = steady(raw);
        // A new line when something changed, not at every tick of a retry's countdown.
        const key = describeProgress(p, { countdown: false });
        if (key !== last) io.stderr.write(`${workflowId}: ${describeProgress(p)}\n`);
        last = key;
      },
      finish() {},
      stop() {},
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      format: ' {bar} {value}/{total} | {phase} | {rows} rows{waiting}',
      hideCursor: true,
      clearOnComplete: false,
      stream: io.stderr as NodeJS.WriteStream,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  let lastTotal = 1;
  let lastRows = 0;
  return {
    update(raw) {
      const p = steady(raw);
      const w = waitingNote(p);
      const payload = {
        phase: p.phase ?? 'running',
        rows: totalRows(p) ?? 0,
        waiting: w ? ` | ${describeWaiting(w)}` : '',
      };
      const total = typeof p.total === 'number' && p.total > 0 ? p.total : 1;
      const value = typeof p.done === 'number' ? p.done : 0;
      lastTotal = total;
      lastRows = payload.rows;
      if (!started) {
        bar.start(total, value, payload);
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(value, payload);
      }
    },
    finish() {
      if (started) bar.update(lastTotal, { phase: 'done', rows: lastRows, waiting: '' });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
