// `scrape-etl demo`: the first command of the README. With no token and no server it starts the simulator
// in-process (seeded), the embedded Temporal dev server and an in-process worker, runs every example pipeline
// against the simulator, and says where the database, the CSV files and the Temporal Web UI are.
import { EXIT } from '../../lib/exit-codes.js';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from '../../vendor/commander.js';
import type { PipelineSpec } from '../../pipelines/spec.js';
import { trapSignals, type SignalTrap } from '../signals.js';
import { sqliteUrlIn } from '../../settings/definition.js';
import { pinSettings, processSettings } from '../../settings/process.js';
import { exportLines, filesOfRun } from './run.js';

export const EXAMPLES_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'pipelines',
  'examples',
);
/** Only the simulator accepts it; a real token never has this form. */
const DEMO_TOKEN = 'demo-token-not-secret';
export const DEMO_TASK_QUEUE = 'scrape-etl-demo';

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
        "no token or server needed (data goes to $SCRAPE_ETL_DATA_DIR, the project's data_dir, or ./data)",
    )
    .argument(
      '[pipelines...]',
      'pipelines of the project (names or files) to run against the simulator instead of the examples, into their own destinations and export folders',
    )
    .option('--seed <n>', 'seed of the simulated data', (v) => Number.parseInt(v, 10), 1)
    .option('--json', 'progress and results as JSON lines')
    .option('-v, --verbose', 'more logs (stderr)')
    .action(async (pipelines: string[], flags: DemoFlags) => {
      const trap = trapSignals({
        whileStarting:
          'the demo started no run; an embedded Temporal server that was starting goes on in the background (`scrape-etl server stop` stops it)',
      });
      try {
        await demo(pipelines, flags, trap);
      } finally {
        trap.dispose();
      }
    });
}

/**
 * The `status` command that shows the demo's runs, run verbatim from this folder: bare when the demo's database is
 * the one `status` reads by default here (the project's, or ./data's), else with --database.
 */
export async function nextStatusCommand(database: string, tool?: string): Promise<string> {
  const { defaultDatabaseUrl } = await import('../resolve-pipeline.js');
  const { destinationKey } = await import('../../db/model/url.js');
  const { shellWord, toolCommand } = await import('../next-steps.js');
  const cmd = tool ?? toolCommand();
  return destinationKey(defaultDatabaseUrl()) === destinationKey(database)
    ? `${cmd} status`
    : `${cmd} status --database ${shellWord(database)}`;
}

/** One pipeline the demo runs: its file and its spec as run (examples redirected to the demo's database and folder). */
interface DemoPipeline {
  file: string;
  spec: PipelineSpec;
}

/**
 * The examples (into the demo's own database and export folder), or the pipelines named (the project's, by name or
 * file), as their files say: their destinations, their exports.
 */
async function demoPipelines(named: string[], database: string, exportDir: string): Promise<DemoPipeline[]> {
  const { loadPipelineFile } = await import('../../pipelines/loader.js');
  if (named.length > 0) {
    const { resolvePipelineFiles } = await import('../resolve-pipeline.js');
    const files = await resolvePipelineFiles(named);
    return Promise.all(files.map(async (file) => ({ file, spec: await loadPipelineFile(file) })));
  }
  const files = fs
    .readdirSync(EXAMPLES_DIR)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort();
  const out: DemoPipeline[] = [];
  for (const name of files) {
    const file = path.join(EXAMPLES_DIR, name);
    const loaded = await loadPipelineFile(file, { env: { ...processSettings().env, DATABASE_URL: database } });
    out.push({
      file,
      spec: { ...loaded, destination: { database }, exports: loaded.exports.map((e) => ({ ...e, dir: exportDir })) },
    });
  }
  return out;
}

async function demo(named: string[], flags: DemoFlags, trap: SignalTrap): Promise<void> {
  // Loaded here, not at the top, so that registering the command for --help stays cheap (see cli/main.ts).
  const { startSimulator } = await import('../../simulator/server.js');
  const { isProcessAlive, readDevServerState } = await import('../../temporal/dev-server.js');
  const { createLogger } = await import('../logger.js');
  const { formatRowsByTable, rowsSeenLines, settleRun, startOrAttach, waitForRun } =
    await import('../pipeline-runner.js');
  const { progressMode } = await import('../progress.js');
  const { forgetRunByWorkflowId } = await import('../run-state.js');
  const { openSession } = await import('../session.js');
  const log = createLogger({ verbose: flags.verbose ?? false });
  const say = (text: string) => {
    if (!flags.json) process.stdout.write(`${text}\n`);
  };
  const sim = await startSimulator({ token: DEMO_TOKEN, seed: flags.seed, runDurationMs: 1000 });
  // The in-process worker's activities read the service address and token from this process's settings;
  // the demo never uses a real account, whatever the shell has set.
  pinSettings(processSettings().withEnv({ SCRAPER_BASE_URL: sim.baseUrl, SCRAPER_API_TOKEN: DEMO_TOKEN }));
  say(`simulator of the scraping service on ${sim.baseUrl} (seed ${flags.seed})`);

  // Always the embedded server: a remote cluster's workers would not reach this process's simulator.
  // Its own task queue: a demo run left behind (the demo killed with -9) is picked up only by a later demo,
  // never by the in-process worker of a `run` holding a real token, which would scrape it at the user's cost.
  const session = await openSession({
    log,
    settings: processSettings().withEnv({ TEMPORAL_ADDRESS: '', TEMPORAL_TASK_QUEUE: DEMO_TASK_QUEUE }),
  });
  const dataDir = session.settings.dataDir;
  const database = sqliteUrlIn(dataDir);
  const exportDir = path.join(dataDir, 'exports');
  // Read before anything runs: a wrong name or a broken file stops the demo with its message, nothing started.
  let pipelines: DemoPipeline[];
  try {
    pipelines = await demoPipelines(named, database, exportDir);
  } catch (err) {
    await session.close();
    await sim.close();
    throw err;
  }
  let failures = 0;
  let interrupted = false;
  let stoppedRun: { database: string; workflowId: string } | undefined;
  try {
    trap.started();
    for (const { file, spec } of pipelines) {
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
      const outcome = await waitForRun(run, { mode: progressMode(flags), signal: trap.signal, log });
      settleRun(dataDir, spec, outcome);
      if (outcome.status === 'interrupted') {
        // A demo run is not resumed (the next demo starts afresh, and this process's simulator is going away):
        // stopped here, so nothing is left running in Temporal.
        await run.handle
          .terminate('scrape-etl demo was interrupted')
          .catch((err: unknown) => log.warn({ err }, 'could not stop the demo run'));
        stoppedRun = { database: spec.destination.database, workflowId: run.workflowId };
        forgetRunByWorkflowId(dataDir, spec.name, run.workflowId);
        process.stderr.write(`interrupted: the demo's run ${run.workflowId} was stopped\n`);
        if (flags.json)
          process.stdout.write(
            `${JSON.stringify({ type: 'interrupted', pipeline: spec.name, workflowId: run.workflowId })}\n`,
          );
        interrupted = true;
        break;
      }
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
            ...rowsSeenLines(outcome.result),
            ...exportLines(outcome.result, exported),
          ].join('\n'),
        );
        if (outcome.result.status !== 'succeeded') failures++;
      } else {
        failures++;
        const reason = outcome.status === 'failed' ? outcome.reason : 'interrupted';
        if (flags.json)
          process.stdout.write(
            `${JSON.stringify({ type: 'failed', pipeline: spec.name, workflowId: run.workflowId, reason })}\n`,
          );
        process.stderr.write(`${spec.name} failed: ${reason}\n`);
      }
    }
  } finally {
    await session.close();
    await sim.close();
  }
  // A terminated workflow never finishes its pipeline_runs row: the demo does, so it does not stay 'running'. Only
  // now, with the in-process worker stopped: the run's plan (a local activity) may still have been starting the row
  // when the workflow was terminated, and would have written 'running' after an earlier look.
  if (stoppedRun !== undefined)
    await markInterrupted(stoppedRun.database, stoppedRun.workflowId).catch((err: unknown) =>
      log.warn({ err }, 'could not mark the demo run interrupted'),
    );
  if (interrupted) {
    process.exitCode = trap.exitCode();
    return;
  }
  const server = readDevServerState(dataDir);
  const ui = session.conn.uiUrl ?? (server ? `http://127.0.0.1:${server.uiPort}` : undefined);
  const { redactDatabaseUrl } = await import('../../db/model/url.js');
  const { shellWord, toolCommand } = await import('../next-steps.js');
  const tool = toolCommand();
  // Named pipelines keep their own destinations and export folders; the examples share the demo's.
  const databases = named.length > 0 ? [...new Set(pipelines.map((p) => p.spec.destination.database))] : [database];
  const exportDirs =
    named.length > 0
      ? [
          ...new Set(
            pipelines.flatMap((p) => p.spec.exports.flatMap((e) => (e.dir !== undefined ? [path.resolve(e.dir)] : []))),
          ),
        ]
      : [exportDir];
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ type: 'summary', database: redactDatabaseUrl(databases[0]!), databases: databases.map(redactDatabaseUrl), exportDir: exportDirs[0] ?? null, exportDirs, temporalUi: ui ?? null, failures })}\n`,
    );
  } else {
    const next =
      named.length > 0
        ? pipelines.map((p) => `  ${tool} status ${shellWord(p.spec.name)}`)
        : [
            `  ${await nextStatusCommand(database, tool)}`,
            // A project of one's own, rather than the examples inside the installed package (its build output).
            `  ${tool} init my-project`,
          ];
    say(
      [
        '',
        `database:     ${databases.map(redactDatabaseUrl).join(', ')}`,
        `exports:      ${exportDirs.length > 0 ? exportDirs.join(', ') : '(none)'}`,
        // The embedded server stopped with the demo (no process outlives it); its runs stay in its database.
        `Temporal UI:  ${ui ?? '(external cluster)'}${server?.pid && isProcessAlive(server.pid) ? '' : `  (while \`${tool} up\` runs: the demo stopped the embedded server it started)`}`,
        'next:',
        ...[...new Set(next)],
      ].join('\n'),
    );
  }
  if (failures > 0) process.exitCode = EXIT.failed;
}

/** Finishes the run's pipeline_runs row as 'interrupted' when the workflow had written one and left it running. */
async function markInterrupted(database: string, workflowId: string): Promise<void> {
  const { openDatabase } = await import('../../destinations/open.js');
  const { finishPipelineRun, getPipelineRun } = await import('../../db/store/pipeline-runs.js');
  const db = await openDatabase(database);
  try {
    const row = await getPipelineRun(db, workflowId);
    if (row?.status === 'running')
      await finishPipelineRun(db, {
        workflowId,
        status: 'interrupted',
        error: 'the demo was interrupted (Ctrl-C); its run was stopped',
      });
  } finally {
    await db.close();
  }
}
