// `scrape-etl validate <files...>`: checks pipeline files without running anything. Every file is checked and
// every problem printed, so one invocation shows all there is to fix; exit code 2 when any file is wrong.
import type { Command } from 'commander';
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
  const { loadPipelineFile } = await import('../../pipelines/loader.js');
  const { destinationIssues } = await import('../../pipelines/preflight.js');
  const { inferredNameIssues } = await import('../../pipelines/preflight-checks.js');
  const { formatIssue } = await import('../../pipelines/errors.js');
  const outcomes: ValidateOutcome[] = [];
  for (const file of files) {
    try {
      const spec = await loadPipelineFile(file);
      // Only a file that loads has a destination to probe; its problems are the file's, at destination.database.
      const issues = await destinationIssues(file, spec, { offline: opts.offline ?? false });
      const inferred = issues.length === 0 ? await inferredNameIssues(file, spec, { offline: opts.offline ?? false }) : { errors: [], warnings: [] };
      const all = [...issues, ...inferred.errors];
      outcomes.push({
        file,
        ok: all.length === 0,
        issues: all.map(formatIssue),
        details: all,
        ...(inferred.warnings.length > 0 ? { warnings: inferred.warnings.map((w) => `${formatIssue(w)} (warning)`) } : {}),
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
    .argument('<files...>', 'pipeline files (.yaml, .yml or .json)')
    .option('--json', 'print one JSON object per file instead of text: {file, ok, issues: [{file, line, column, path, message, suggestion}]}')
    .option('--offline', 'skip the checks that need the network (connecting to a Postgres destination), e.g. in CI')
    .action(async (files: string[], opts: { json?: boolean; offline?: boolean }) => {
      const outcomes = await validateFiles(files, { offline: opts.offline ?? false });
      const { issueJson } = await import('../../pipelines/errors.js');
      for (const o of outcomes) {
        if (!opts.json && o.warnings) process.stderr.write(`${o.warnings.join('\n')}\n`);
        if (opts.json) process.stdout.write(`${JSON.stringify({ file: o.file, ok: o.ok, issues: o.details.map(issueJson), ...(o.warnings ? { warnings: o.warnings } : {}) })}\n`);
        else if (o.ok) process.stdout.write(`OK ${o.file}\n`);
        else process.stderr.write(`${o.issues.join('\n')}\n`);
      }
      const failed = outcomes.filter((o) => !o.ok).length;
      if (failed > 0) {
        if (!opts.json) process.stderr.write(`${failed} of ${outcomes.length} file${outcomes.length === 1 ? '' : 's'} invalid\n`);
        process.exitCode = 2;
      }
    });
}
