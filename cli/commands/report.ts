// `scrape-etl report <pipeline> --out report.html`: one self-contained HTML file (console/report.ts).
import type { Command } from '../../vendor/commander.js';
import { addDatabaseOption } from '../options.js';

export function register(program: Command): void {
  const cmd = program
    .command('report')
    .description(
      "one self-contained HTML file of a pipeline: its runs, each run's page and its price history (opens with no network)",
    )
    .argument('<pipeline>', 'pipeline file, or pipeline name (found through the project, scrape-etl.yaml)');
  addDatabaseOption(
    cmd,
    "destination database (default: the pipeline's destination, else DATABASE_URL, the project's destination or sqlite:./data/scrape-etl.sqlite)",
  )
    .requiredOption('--out <file>', 'the HTML file to write')
    .option(
      '--since <duration>',
      "only runs started in this span back from now: '12h', '30d', '2w' (default: the last 50 runs)",
    )
    .action(async (arg: string, flags: { database?: string; out: string; since?: string }) => {
      const { readTarget, sinceDate } = await import('./status.js');
      // By file or by name, and in the pipeline's own destination, as status and history (cli/resolve-pipeline.ts).
      const { databaseUrl, ref } = await readTarget(arg, flags.database);
      const pipeline = ref!.name;
      const { writeReport } = await import('../../console/report.js');
      const since = sinceDate(flags.since);
      const r = await writeReport({ databaseUrl, pipeline, out: flags.out, ...(since ? { since } : {}) });
      process.stdout.write(`report: ${r.file} (${r.runs} run(s), ${r.bytes} bytes)\n`);
    });
}
