// `scrape-etl validate <files...>`: checks pipeline files without running anything. Every file is checked and
// every problem printed, so one invocation shows all there is to fix; exit code 2 when any file is wrong.
import { EXIT } from '../../lib/exit-codes.js';
import type { Command } from '../../vendor/commander.js';
import { PipelineFileError, type PipelineIssue } from '../../pipelines/errors.js';

export interface ValidateOutcome {
  file: string;
  ok: boolean;
  /** Each problem as `file:line:col: path: message` (the text output). */
  issues: string[];
  /** The same problems with their fields, for --json. */
  details: PipelineIssue[];
  /** What could not be verified (checks on inferred tables before their first run); not a failure. */
  warnings?: string[];
}

export interface ValidateOptions {
  /** Skip the checks that need the network (probing a Postgres destination). */
  offline?: boolean;
}

export async function validateFiles(files: string[], opts: ValidateOptions = {}): Promise<ValidateOutcome[]> {
  // Loaded here, not at the top, so that registering the command for --help stays cheap (see cli/main.ts).
  const { loadPipelineFile, positionInPipelineFile } = await import('../../pipelines/loader.js');
  const { destinationIssues, notifyIssues } = await import('../../pipelines/preflight.js');
  const { temporalSettings } = await import('../../temporal/settings.js');
  // On the embedded server the worker is this machine's, started from this environment (`run`'s own, or one the
  // user starts here): its webhook variables are checked here. A cluster's workers have their own environment,
  // which only they can check (the run then fails at its first step with NotifyConfigError).
  const localWorker = temporalSettings().address === undefined;
  const { inferredNameIssues } = await import('../../pipelines/preflight-checks.js');
  const { formatIssue } = await import('../../pipelines/errors.js');
  const { contentTableName } = await import('../../db/model/evolve/names.js');
  const outcomes: ValidateOutcome[] = [];
  // Pipelines seen so far by destination and content table name: two names that give one table (`crm-leads`,
  // `crm_leads`) would share it, and the loader refuses the second (issue 30), so validate says so first.
  const tableOwners = new Map<string, { name: string; file: string }>();
  for (const file of files) {
    try {
      const spec = await loadPipelineFile(file);
      // Only a file that loads has a destination to probe; its problems are the file's, at destination.database.
      const issues = [
        ...(await destinationIssues(file, spec, { offline: opts.offline ?? false })),
        ...(localWorker ? await notifyIssues(file, spec) : []),
      ];
      const table = contentTableName(spec.name);
      const key = `${spec.destination.database}\u0001${table}`;
      const owner = tableOwners.get(key);
      if (owner && owner.name !== spec.name) {
        const at = await positionInPipelineFile(file, ['name']);
        issues.push({
          file,
          line: at?.line ?? 1,
          col: at?.col ?? 1,
          path: 'name',
          message: `pipeline name '${spec.name}' gives the table name '${table}', as '${owner.name}' (${owner.file}) does in the same destination; their rows would share one table. Rename one of them`,
        });
      } else if (!owner) tableOwners.set(key, { name: spec.name, file });
      const inferred =
        issues.length === 0
          ? await inferredNameIssues(file, spec, { offline: opts.offline ?? false })
          : { errors: [], warnings: [] };
      const all = [...issues, ...inferred.errors];
      outcomes.push({
        file,
        ok: all.length === 0,
        issues: all.map(formatIssue),
        details: all,
        ...(inferred.warnings.length > 0
          ? { warnings: inferred.warnings.map((w) => `${formatIssue(w)} (warning)`) }
          : {}),
      });
    } catch (err) {
      if (!(err instanceof PipelineFileError)) throw err;
      outcomes.push({ file, ok: false, issues: err.issues.map(formatIssue), details: err.issues });
    }
  }
  return outcomes;
}

export function register(program: Command): void {
  program
    .command('validate')
    .description(
      'check pipeline files: prints OK per file, or every error as file:line:col: path: message; ' +
        'the destination database is probed read-only (nothing is created)',
    )
    .argument(
      '[pipelines...]',
      'pipeline files (.yaml, .yml or .json), or pipeline names of the project (default: every pipeline of the project)',
    )
    .option(
      '--json',
      'print one JSON object per file instead of text: {file, ok, issues: [{file, line, column, path, message, suggestion}]}',
    )
    .option('--offline', 'skip the checks that need the network (connecting to a Postgres destination), e.g. in CI')
    .action(async (args: string[], opts: { json?: boolean; offline?: boolean }) => {
      const files = await (await import('../resolve-pipeline.js')).resolvePipelineFiles(args);
      const outcomes = await validateFiles(files, { offline: opts.offline ?? false });
      const { issueJson } = await import('../../pipelines/errors.js');
      for (const o of outcomes) {
        if (!opts.json && o.warnings) process.stderr.write(`${o.warnings.join('\n')}\n`);
        if (opts.json)
          process.stdout.write(
            `${JSON.stringify({ file: o.file, ok: o.ok, issues: o.details.map(issueJson), ...(o.warnings ? { warnings: o.warnings } : {}) })}\n`,
          );
        else if (o.ok) process.stdout.write(`OK ${o.file}\n`);
        else process.stderr.write(`${o.issues.join('\n')}\n`);
      }
      const failed = outcomes.filter((o) => !o.ok).length;
      if (failed > 0) {
        if (!opts.json)
          process.stderr.write(`${failed} of ${outcomes.length} file${outcomes.length === 1 ? '' : 's'} invalid\n`);
        process.exitCode = EXIT.usage;
      }
    });
}
