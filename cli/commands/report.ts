// `scrape-etl report <pipeline> --out report.html`: one self-contained HTML file (console/report.ts).
import type { Command } from '../../vendor/commander.js';
import { addDatabaseOption } from '../options.js';

export function register(program: Command): void {
  const cmd = program
    .command('report')
    .description("one self-contained HTML file of a pipeline: its runs, each run's page and its price history (opens with no network)")
    .argument('<pipeline>', 'pipeline name');
  addDatabaseOption(cmd, "destination database (default: DATABASE_URL, else the project's destination, else sqlite:./data/scrape-etl.sqlite)")
    .requiredOption('--out <file>', 'the HTML file to write')
    .option('--since <duration>', "only runs started in this span back from now: '12h', '30d', '2w' (default: the last 50 runs)")
    .action(async (pipeline: string, flags: { database?: string; out: string; since?: string }) => {
      const { defaultDatabaseUrl } = await import('../../db/connect.js');
      const { sinceDate } = await import('./status.js');
      const { writeReport } = await import('../../console/report.js');
      const since = sinceDate(flags.since);
      const r = await writeReport({ databaseUrl: flags.database ?? defaultDatabaseUrl(), pipeline, out: flags.out, ...(since ? { since } : {}) });
      process.stdout.write(`report: ${r.file} (${r.runs} run(s), ${r.bytes} bytes)\n`);
    });
}
