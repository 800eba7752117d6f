/**
 * Shows a running workflow's `progress` query to the user: a cli-progress bar on a TTY, otherwise one plain line
 * per change, or one JSON object per change with --json (for scripts and CI logs).
 */
import cliProgress from 'cli-progress';
import { processIO, type CommandIO } from './io.js';

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
    return Object.values(byTable as Record<string, unknown>).reduce<number>((s, v) => s + (typeof v === 'number' ? v : 0), 0);
  }
  return undefined;
}

export function describeProgress(p: ProgressSnapshot): string {
  const parts = [p.phase ?? 'running'];
  if (typeof p.done === 'number' && typeof p.total === 'number') parts.push(`${p.done}/${p.total}`);
  const rows = totalRows(p);
  if (rows !== undefined) parts.push(`${rows} rows`);
  return parts.join(' ');
}

export function createProgressReporter(mode: ProgressMode, workflowId: string, io: CommandIO = processIO): ProgressReporter {
  let last = '';
  if (mode === 'json') {
    return {
      update(p) {
        const line = JSON.stringify({ type: 'progress', workflowId, ...p });
        if (line !== last) io.stdout.write(`${line}\n`);
        last = line;
      },
      stop() {},
    };
  }
  if (mode === 'lines') {
    return {
      update(p) {
        const line = describeProgress(p);
        if (line !== last) io.stderr.write(`${workflowId}: ${line}\n`);
        last = line;
      },
      stop() {},
    };
  }
  const bar = new cliProgress.SingleBar(
    { format: ' {bar} {value}/{total} | {phase} | {rows} rows', hideCursor: true, clearOnComplete: false, stream: io.stderr as NodeJS.WriteStream },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(p) {
      const payload = { phase: p.phase ?? 'running', rows: totalRows(p) ?? 0 };
      const total = typeof p.total === 'number' && p.total > 0 ? p.total : 1;
      const value = typeof p.done === 'number' ? p.done : 0;
      if (!started) {
        bar.start(total, value, payload);
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(value, payload);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
