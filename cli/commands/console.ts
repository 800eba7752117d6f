// `scrape-etl console`: the local web console (console/server.ts) over a destination database, read-only.
import { EXIT, signalExitCode } from '../../lib/exit-codes.js';
import type { Command } from '../../vendor/commander.js';
import { addDatabaseOption } from '../options.js';

interface ConsoleFlags {
  database?: string;
  port?: number;
  host?: string;
  temporal: boolean;
  temporalUi?: string;
  allowHost: string[];
}

function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw Object.assign(new Error(`--port ${v}: expected a port number from 0 to 65535`), { exitCode: EXIT.usage });
  return n;
}

export function register(program: Command): void {
  const cmd = program
    .command('console')
    .description(
      'a local web console over your pipelines: runs, data, price history, leads and cost (read-only; 127.0.0.1, a free port)',
    )
    .argument(
      '[pipelines...]',
      'pipeline files or pipeline names of the project: show their pipelines, read from their destinations',
    );
  addDatabaseOption(
    cmd,
    "destination database to show (default: DATABASE_URL, else the project's destination, else sqlite:./data/scrape-etl.sqlite; pipelines given show their own destinations instead)",
  )
    .option('--port <n>', 'port to listen on (default: a free one)', port)
    .option(
      '--host <address>',
      'listen on this address instead of 127.0.0.1 (then an access token is required; printed with the URL)',
    )
    .option(
      '--allow-host <name>',
      "also answer requests naming this host (e.g. a reverse proxy's public name); repeatable. Others are refused (DNS rebinding)",
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--no-temporal', 'do not ask a running Temporal for the next scheduled times')
    .option(
      '--temporal-ui <url>',
      "Temporal Web UI address for run links (default: TEMPORAL_UI_URL, or the embedded server's)",
    )
    .action(async (args: string[], flags: ConsoleFlags) => {
      // By file or by name, as every command that takes a pipeline (cli/resolve-pipeline.ts); none: the database.
      const { resolvePipelineFile } = await import('../resolve-pipeline.js');
      const files = await Promise.all(args.map(resolvePipelineFile));
      const { consoleDatabases } = await import('../../console/targets.js');
      const { startConsole, isLoopback } = await import('../../console/server.js');
      const databases = await consoleDatabases({ database: flags.database, files });
      const host = flags.host ?? '127.0.0.1';
      if (!isLoopback(host)) {
        process.stderr.write(
          `warning: the console listens on ${host}, reachable from other machines; it shows your data to whoever has its URL (with the access token). Use it on trusted networks only.\n`,
        );
      }
      const c = await startConsole({
        databases,
        ...(flags.port !== undefined ? { port: flags.port } : {}),
        host,
        temporal: flags.temporal,
        allowHosts: flags.allowHost,
        ...(flags.temporalUi ? { temporalUiUrl: flags.temporalUi } : {}),
      });
      process.stdout.write(`console: ${c.url}\n`);
      if (c.token) process.stdout.write(`access token: ${c.token}\n`);
      process.stdout.write(
        `read-only over ${databases.map((d) => d.url.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@')).join(', ')}; Ctrl-C stops it\n`,
      );
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await c.close();
      // Ended by a signal: its code, as every command (README, "Exit codes").
      process.exitCode = signalExitCode(signal);
    });
}
