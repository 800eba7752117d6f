// `scrape-etl check [pipelines...]`: a pipeline's data checks evaluated now against its destination, without a run
// (row_count with scope run needs one and is reported skipped). `--freshness` evaluates only the freshness checks:
// what a cron job, `scrape-etl up`'s scheduler or a Temporal schedule runs to catch a pipeline that stopped.
// Results land in check_results like a run's; exit code 3 when an error check failed, 2 for a bad file.
import type { Command } from '../../vendor/commander.js';
import { addDatabaseOption } from '../options.js';

export function register(program: Command): void {
  const cmd = program
    .command('check')
    .description(
      "evaluate a pipeline's data checks against its destination now (results in check_results); exit code 3 when an error check fails",
    )
    .argument(
      '[pipelines...]',
      'pipeline files, or pipeline names of the project (default: every pipeline of the project)',
    )
    .option('--freshness', 'only the freshness checks (for a periodic job: catches a pipeline that stopped running)')
    .option('--notify', "send check_failed to the pipeline's webhooks subscribed to it when a check fails")
    .option('--json', 'one JSON object per check result');
  addDatabaseOption(cmd, "destination database (default: the pipeline file's destination)").action(
    async (args: string[], flags: { freshness?: boolean; json?: boolean; database?: string; notify?: boolean }) => {
      // By file or by name, as every command that takes a pipeline (cli/resolve-pipeline.ts).
      const files = await (await import('../resolve-pipeline.js')).resolvePipelineFiles(args);
      // Loaded here, not at the top, so that registering the command for --help stays cheap (see cli/main.ts).
      const { loadPipelineFile } = await import('../../pipelines/loader.js');
      const { PipelineFileError, formatIssue } = await import('../../pipelines/errors.js');
      const { openDatabase, redactDatabaseUrl } = await import('../../destinations/open.js');
      const { evaluateAndRecord, evaluateFreshness } = await import('../../checks/run-checks.js');
      const { sendCheckAlert } = await import('../../alerts/check-alert.js');
      let worst = 0;
      for (const file of files) {
        let spec;
        try {
          spec = await loadPipelineFile(file);
        } catch (err) {
          if (!(err instanceof PipelineFileError)) throw err;
          process.stderr.write(`${err.issues.map(formatIssue).join('\n')}\n`);
          worst = Math.max(worst, 2);
          continue;
        }
        const url = flags.database ?? spec.destination.database;
        const checks = (spec.checks ?? []).filter((c) => !flags.freshness || c.type === 'freshness');
        if (checks.length === 0) {
          process.stderr.write(`${file}: no ${flags.freshness ? 'freshness ' : ''}checks in pipeline '${spec.name}'\n`);
          continue;
        }
        const db = await openDatabase(url);
        try {
          const workflowId = `check:${new Date().toISOString()}`;
          const out = flags.freshness
            ? await evaluateFreshness(db, spec)
            : { ...(await evaluateAndRecord(db, { pipeline: spec.name, workflowId, checks })), workflowId };
          if (flags.notify && out.detail) {
            // Each accepted delivery is recorded in notify_deliveries (keyed by this evaluation's id), as run alerts are.
            const alert = await sendCheckAlert(spec, out, { db });
            // Not delivered is said where the user looks, and fails the command.
            for (const p of alert.problems) process.stderr.write(`${spec.name}: check_failed not sent: ${p}\n`);
            if (alert.problems.length > 0) worst = Math.max(worst, 1);
          }
          for (const r of out.results) {
            if (flags.json) process.stdout.write(`${JSON.stringify({ file, pipeline: spec.name, ...r })}\n`);
            else
              process.stdout.write(
                `${r.status.toUpperCase().padEnd(7)} ${r.severity.padEnd(5)} ${spec.name} ${r.name}: ${r.message}${r.observed && r.status !== 'pass' ? ` (observed ${r.observed}${r.threshold ? `, expected ${r.threshold}` : ''})` : ''}\n`,
              );
          }
          if (!flags.json) {
            process.stdout.write(
              `${spec.name} (${redactDatabaseUrl(url)}): ${out.results.filter((r) => r.status === 'pass').length} passed, ${out.errorsFailed} error failure(s), ${out.warnsFailed} warning(s)\n`,
            );
          }
          if (out.errorsFailed > 0) worst = Math.max(worst, 3);
        } finally {
          await db.close();
        }
      }
      process.exitCode = worst;
    },
  );
}
