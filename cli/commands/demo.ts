// `scrape-etl demo`: the first command of the README. With no token and no server it starts the simulator
// in-process (seeded), the embedded Temporal dev server and an in-process worker, runs every example pipeline
// against the simulator, and says where the database, the CSV files and the Temporal Web UI are.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { PipelineSpec } from '../../pipelines/spec.js';
import { startSimulator } from '../../simulator/server.js';
import { readDevServerState } from '../../temporal/dev-server.js';
import { exportLines, filesOfRun } from './run.js';

export const EXAMPLES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'pipelines', 'examples');
/** Only the simulator accepts it; a real token never has this form. */
const DEMO_TOKEN = 'demo-token-not-secret';

interface DemoFlags {
  seed: number;
  json?: boolean;
  verbose?: boolean;
}

export function register(program: Command): void {
  program
    .command('demo')
    .description(
      'run every example pipeline against a local simulator of the scraping service, on an embedded Temporal server; ' +
        'no token or server needed (data goes to $SCRAPE_ETL_DATA_DIR or ./data)',
    )
    .option('--seed <n>', 'seed of the simulated data', (v) => Number.parseInt(v, 10), 1)
    .option('--json', 'progress and results as JSON lines')
    .option('-v, --verbose', 'more logs (stderr)')
    .action(async (flags: DemoFlags) => {
      // Loaded here, not at the top, so that registering the command for --help stays cheap (see cli/main.ts).
      const { loadPipelineFile } = await import('../../pipelines/loader.js');
      const { createLogger } = await import('../logger.js');
      const { formatRowsByTable, settleRun, startOrAttach, waitForRun } = await import('../pipeline-runner.js');
      const { progressMode } = await import('../progress.js');
      const { openSession } = await import('../session.js');
      const log = createLogger({ verbose: flags.verbose ?? false });
      const say = (text: string) => {
        if (!flags.json) process.stdout.write(`${text}\n`);
      };
      const sim = await startSimulator({ token: DEMO_TOKEN, seed: flags.seed, runDurationMs: 1000 });
      // The in-process worker's activities read the service address and token from this process's environment;
      // the demo never uses a real account, whatever the shell has set.
      process.env['SCRAPER_BASE_URL'] = sim.baseUrl;
      process.env['SCRAPER_API_TOKEN'] = DEMO_TOKEN;
      say(`simulator of the scraping service on ${sim.baseUrl} (seed ${flags.seed})`);

      // Always the embedded server: a remote cluster's workers would not reach this process's simulator.
      const session = await openSession({ log, env: { ...process.env, TEMPORAL_ADDRESS: '' } });
      const dataDir = session.settings.dataDir;
      const database = `sqlite:${path.join(dataDir, 'scrape-etl.sqlite')}`;
      const exportDir = path.join(dataDir, 'exports');
      let failures = 0;
      try {
        const files = fs.readdirSync(EXAMPLES_DIR).filter((f) => /\.(ya?ml|json)$/.test(f)).sort();
        for (const name of files) {
          const file = path.join(EXAMPLES_DIR, name);
          const loaded = await loadPipelineFile(file, { env: { ...process.env, DATABASE_URL: database } });
          const spec: PipelineSpec = { ...loaded, destination: { database }, exports: loaded.exports.map((e) => ({ ...e, dir: exportDir })) };
          const run = await startOrAttach({
            client: session.conn.client,
            taskQueue: session.conn.taskQueue,
            dataDir,
            spec,
            file,
            fresh: true,
            log,
          });
          const startedAt = new Date();
          say(`\n${spec.kind}: ${spec.name} (${run.workflowId})`);
          const outcome = await waitForRun(run, { mode: progressMode(flags), log });
          settleRun(dataDir, spec, outcome);
          if (outcome.status === 'completed') {
            const exported = filesOfRun(spec, outcome.result, startedAt);
            if (flags.json) {
              process.stdout.write(
                `${JSON.stringify({ type: 'result', pipeline: spec.name, workflowId: run.workflowId, status: outcome.result.status, rowsByTable: outcome.result.rowsByTable, exportedFiles: exported, exportStatus: outcome.result.exportStatus, unchangedTables: outcome.result.exportUnchanged ?? [] })}\n`,
              );
            }
            say(
              [
                `${outcome.result.status}; rows by table:`,
                ...formatRowsByTable(outcome.result.rowsByTable),
                ...exportLines(outcome.result, exported),
              ].join('\n'),
            );
            if (outcome.result.status !== 'succeeded') failures++;
          } else {
            failures++;
            const reason = outcome.status === 'failed' ? outcome.reason : 'interrupted';
            if (flags.json) process.stdout.write(`${JSON.stringify({ type: 'failed', pipeline: spec.name, workflowId: run.workflowId, reason })}\n`);
            process.stderr.write(`${spec.name} failed: ${reason}\n`);
          }
        }
      } finally {
        await session.close();
        await sim.close();
      }
      const server = readDevServerState(dataDir);
      const ui = session.conn.uiUrl ?? (server ? `http://127.0.0.1:${server.uiPort}` : undefined);
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ type: 'summary', database, exportDir, temporalUi: ui ?? null, failures })}\n`);
      } else {
        say(
          [
            '',
            `database:     ${database}`,
            `CSV exports:  ${exportDir}`,
            `Temporal UI:  ${ui ?? '(external cluster)'}${server?.pid ? `  (embedded server pid ${server.pid} keeps running; \`scrape-etl server stop\` stops it)` : ''}`,
            `next: \`scrape-etl status\`, or edit a copy of ${EXAMPLES_DIR}/*.yaml and \`scrape-etl run <file>\``,
          ].join('\n'),
        );
      }
      if (failures > 0) process.exitCode = 1;
    });
}
