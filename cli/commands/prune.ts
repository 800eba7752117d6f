// `scrape-etl prune <files...>`: applies each pipeline file's `retention` section now, as runs do when they end:
// raw responses older than `retention.raw_responses` (keeping those current rows were loaded from, bodies other
// rows reference and runs in progress), and export files beyond the newest `retention.exports` per table.
import { EXIT } from '../../lib/exit-codes.js';
import type { Command } from '../../vendor/commander.js';
import { PipelineFileError } from '../../pipelines/errors.js';

export function register(program: Command): void {
  program
    .command('prune')
    .description(
      "apply the pipelines' retention sections now: old raw responses and old export files (what current rows need stays)",
    )
    .argument(
      '[pipelines...]',
      'pipeline files, or pipeline names of the project (default: every pipeline of the project)',
    )
    .option('--json', 'one JSON object per pipeline')
    .action(async (args: string[], opts: { json?: boolean }) => {
      // Loaded here, not at the top, so that registering the command for --help stays cheap (see cli/main.ts).
      const { resolvePipelineFiles } = await import('../resolve-pipeline.js');
      const files = await resolvePipelineFiles(args);
      const { loadPipelineFile } = await import('../../pipelines/loader.js');
      const { openDatabase } = await import('../../destinations/open.js');
      const { applyRetention } = await import('../../retention/apply-retention.js');
      for (const file of files) {
        let spec;
        try {
          spec = await loadPipelineFile(file);
        } catch (err) {
          if (err instanceof PipelineFileError) throw Object.assign(err, { exitCode: EXIT.usage });
          throw err;
        }
        if (!spec.retention) {
          if (opts.json) process.stdout.write(`${JSON.stringify({ file, pipeline: spec.name, retention: null })}\n`);
          else process.stdout.write(`${spec.name}: no retention section in ${file}; nothing to do\n`);
          continue;
        }
        const db = await openDatabase(spec.destination.database);
        try {
          const out = await applyRetention(db, spec);
          if (opts.json) {
            process.stdout.write(
              `${JSON.stringify({ file, pipeline: spec.name, retention: spec.retention, ...out })}\n`,
            );
            continue;
          }
          const parts: string[] = [];
          if (out.rawResponses) {
            parts.push(
              `raw responses older than ${spec.retention.raw_responses}: ${out.rawResponses.deleted} deleted, ${out.rawResponses.kept} kept (current rows' lineage, shared bodies, runs in progress)`,
            );
          }
          if (out.exports) {
            parts.push(
              `export files: ${out.exports.deleted.length} deleted, ${out.exports.kept} kept (newest ${spec.retention.exports} per table)`,
            );
            for (const s of out.exports.skipped) parts.push(`export ${s.dir}/${s.fileName} not pruned: ${s.reason}`);
          }
          process.stdout.write(`${spec.name}: ${parts.join('; ') || 'nothing to do'}\n`);
        } finally {
          await db.close();
        }
      }
    });
}
