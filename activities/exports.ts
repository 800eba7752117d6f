// The last step of a run: the pipeline's exports (export/ module: CSV, Parquet, JSON Lines, XLSX), written from the destination database.
// Heartbeats while it streams (an export of millions of rows outlasts any heartbeat timeout), names its files
// after the run's start time so a retried attempt replaces its own files instead of adding a set, and records
// finished entries in its heartbeat so a retry does not write them again.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { exportTablesReport } from '../export/export.js';
import { describeExportFsError } from '../export/fs-errors.js';
import type { ActivityDeps } from './deps.js';
import { keepAlive } from './keep-alive.js';
import type { ExportsHeartbeat, ExportsInput, ExportsOutput } from './types.js';

export function exportActivities(deps: ActivityDeps) {
  return {
    async runExports(input: ExportsInput): Promise<ExportsOutput> {
      const { spec, workflowId } = input;
      const ctx = Context.current();
      const previous = ctx.info.heartbeatDetails as ExportsHeartbeat | undefined;
      const done = new Map<number, { files: ExportsOutput['files']; unchanged: string[] }>(
        (previous?.done ?? []).map(([index, files, unchanged]) => [index, { files, unchanged: unchanged ?? [] }]),
      );
      const beatDetails = (): ExportsHeartbeat => ({
        done: [...done.entries()].map(([i, d]) => [i, d.files, d.unchanged]),
      });
      const beat = () => ctx.heartbeat(beatDetails());
      // Alive is said on a clock, not only per batch written: before its first rows an export opens the destination,
      // may wait for its file (DuckDB: one process at a time, another worker's or an analyst's session holding it)
      // and reads the catalog, which together outlasted a short heartbeat timeout on a busy machine attempt after
      // attempt (the chaos soak on DuckDB: attempt 10 of 10, each "activity Heartbeat timeout"). The beats carry the
      // entries done, what a retry resumes from; a worker that dies or an event loop that stops still goes silent,
      // and an export that never ends is bounded by the activity's start-to-close timeout.
      const stopBeats = keepAlive(ctx, beatDetails);
      try {
        return await exportEntries();
      } finally {
        stopBeats();
      }

      async function exportEntries(): Promise<ExportsOutput> {
        const db = await deps.destination(spec.destination.database);
        const timestamp = new Date(input.startedAt);
        for (const [index, e] of spec.exports.entries()) {
          if (done.has(index)) continue;
          if (e.to !== undefined) {
            const to = e.to;
            // The lake (export/targets/lake.ts): its file names, manifest and watermark make a retry write the same
            // objects again, so nothing here needs to remember more than that the entry is done.
            const { exportToLake } = await import('../export/targets/lake.js');
            const lake = await exportOrClassify(to, () =>
              exportToLake(db, {
                to,
                pipeline: spec.name,
                tables: e.tables,
                format: e.format ?? 'parquet',
                partitionBy: e.partition_by ?? [],
                ...(e.table_format !== undefined ? { tableFormat: e.table_format } : {}),
                ...(e.snapshot === true ? { snapshot: true } : {}),
                runId: workflowId,
                timestamp,
                signal: ctx.cancellationSignal,
                onProgress: beat,
              }),
            );
            done.set(index, {
              files: lake.files.map((f) => ({ table: f.table, file: f.file, rows: f.rows })),
              unchanged: lake.unchanged,
            });
            beat();
            continue;
          }
          const dir = e.dir ?? '.';
          const written = await exportOrClassify(dir, () =>
            exportTablesReport(db, {
              pipeline: spec.name,
              // [] means every table holding this pipeline's rows, which is what the kind writes.
              tables: e.tables,
              outDir: dir,
              // A run started before exports had a format (its spec is in the workflow's history) wrote CSV.
              format: e.format ?? 'csv',
              mode: e.mode,
              // A run started before write_empty existed has none in its spec: no file when nothing is new.
              ...(e.mode === 'incremental' ? { writeEmpty: e.write_empty ?? false } : {}),
              delimiter: e.delimiter,
              bom: e.bom,
              nullText: e.null_text,
              fileName: e.file_name,
              neutralizeFormulas: e.neutralize_formulas,
              timestamp,
              runId: workflowId,
              signal: ctx.cancellationSignal,
              // The SDK throttles heartbeats, so one per batch costs nothing and keeps a long table alive.
              onProgress: beat,
            }),
          );
          done.set(index, {
            files: written.files.map((f) => ({ table: f.table, file: f.file, rows: f.rows })),
            unchanged: written.unchanged,
          });
          beat();
        }
        const entries = [...done.entries()].sort(([a], [b]) => a - b).map(([, d]) => d);
        return { files: entries.flatMap((d) => d.files), unchanged: [...new Set(entries.flatMap((d) => d.unchanged))] };
      }
    },
  };
}

/** A beat every quarter of the heartbeat timeout (the SDK sends at most one per 0.8 of it); 10 s without one. */
/**
 * Export errors that no retry can fix fail at once, as one sentence (export/fs-errors.ts: a file where the folder
 * should be, no permission, a read-only or full disk; export/'s own 'export:' messages: an unknown table, a bad
 * file name); anything else (a database connection) is retried by Temporal.
 */
async function exportOrClassify<T>(dir: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const sentence = describeExportFsError(err, dir);
    if (sentence !== undefined) throw ApplicationFailure.nonRetryable(sentence, 'ExportConfigError');
    if (err instanceof Error && err.message.startsWith('export:'))
      throw ApplicationFailure.nonRetryable(err.message, 'ExportConfigError');
    throw err;
  }
}
