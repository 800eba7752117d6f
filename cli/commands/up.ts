// `scrape-etl up` and `scrape-etl down`: the visible way to run schedules and runs on one machine. `up` runs, in
// one foreground process, the embedded Temporal dev server (unless TEMPORAL_ADDRESS is set), N pipeline workers,
// the metrics endpoint and any extra service asked for (cli/up/services.ts); `--detach` leaves it running in the
// background with a pid file and a log in the data folder, `down` stops it. `--print-systemd` prints a unit that
// runs it under systemd instead.
import { EXIT } from '../../lib/exit-codes.js';
import type { Command } from '../../vendor/commander.js';
import { positiveInt, workerSettings } from '../worker-options.js';
import { UP_SERVICES } from '../up/services.js';
import { processSettings } from '../../settings/process.js';
import type { Settings } from '../../settings/settings.js';

interface UpFlags {
  workers: number;
  maxActivities: number;
  shutdownGrace?: string;
  logLevel?: string;
  metricsPort?: string;
  metricsHost?: string;
  detach?: boolean;
  printSystemd?: boolean;
  environmentFile: string;
  user?: string;
  [service: string]: unknown;
}

/** How long a detached `up` may take to poll: it may start the embedded server, or fetch the Temporal CLI first. */
const DETACH_READY_TIMEOUT_MS = 180_000;

export function register(program: Command): void {
  const up = program
    .command('up')
    .description(
      'run the embedded Temporal server (unless TEMPORAL_ADDRESS is set), pipeline workers and the metrics endpoint in this ' +
        'process until Ctrl-C or SIGTERM: how schedules and runs are worked on, on one machine',
    )
    .option('--workers <n>', 'pipeline workers in this process', positiveInt('--workers'), 1)
    .option('--max-activities <n>', 'activities running at once in each worker', positiveInt('--max-activities'), 20)
    .option(
      '--shutdown-grace <duration>',
      'on Ctrl-C/SIGTERM, time for in-flight activities to finish (default SCRAPE_ETL_SHUTDOWN_GRACE or 30s)',
    )
    .option(
      '--log-level <level>',
      'Temporal SDK log level (TRACE, DEBUG, INFO, WARN, ERROR; default SCRAPE_ETL_WORKER_LOG_LEVEL or WARN)',
    )
    .option(
      '--metrics-port <port>',
      'serve Prometheus metrics at http://<host>:<port>/metrics (default SCRAPE_ETL_METRICS_PORT; none when unset; 0 = any free port)',
    )
    .option(
      '--metrics-host <address>',
      'address the metrics endpoint binds (default SCRAPE_ETL_METRICS_HOST or 127.0.0.1)',
    )
    .option('--detach', 'start it in the background: prints its pid, pid file and log file; `scrape-etl down` stops it')
    .option('--print-systemd', 'print a systemd unit that runs `scrape-etl up` with these options, and exit')
    // Not --env-file: Node 20 takes that option for itself wherever it stands on the command line.
    .option(
      '--environment-file <file>',
      'with --print-systemd: the EnvironmentFile holding SCRAPER_API_TOKEN and the like',
      '/etc/scrape-etl/env',
    )
    .option('--user <name>', 'with --print-systemd: the User= the service runs as');
  for (const [name, s] of Object.entries(UP_SERVICES)) up.option(`--${name}`, s.description);
  up.action(async (flags: UpFlags) => {
    // The flags over the environment, the project file and the defaults: one settings object for all of `up`.
    const settings = workerSettings(flags);
    const metricsPort = settings.metricsPort;
    const shutdownGrace = settings.shutdownGrace;
    const logLevel = settings.workerLogLevel;
    const services = Object.keys(UP_SERVICES).filter((name) => flags[name] === true);
    if (flags.printSystemd) {
      process.stdout.write(await systemdText(flags, settings));
      return;
    }
    if (flags.detach) {
      process.exitCode = await detach();
      return;
    }
    const { runUp } = await import('../up/run-up.js');
    process.exitCode = await runUp({
      workers: flags.workers,
      maxActivities: flags.maxActivities,
      shutdownGrace,
      logLevel,
      metricsPort,
      metricsHost: settings.metricsHost,
      services,
      settings,
    });
  });

  program
    .command('down')
    .description(
      'stop the `scrape-etl up` of this data folder (SIGTERM: its workers drain, its embedded server stops), and wait for it',
    )
    .option('--timeout <seconds>', 'how long to wait before killing it (SIGKILL)', positiveInt('--timeout'), 90)
    .action(async (flags: { timeout: number }) => {
      const { temporalSettings } = await import('../../temporal/settings.js');
      const { liveUp, upPaths } = await import('../up/paths.js');
      const { isProcessAlive } = await import('../../lib/process-alive.js');
      const { dataDir } = temporalSettings();
      const state = liveUp(dataDir);
      if (!state) {
        // What was named is not there: 1, as `server status` and `server stop` (README, "Exit codes").
        process.stderr.write(`no scrape-etl up runs for ${dataDir}; nothing to stop\n`);
        process.exitCode = EXIT.failed;
        return;
      }
      const started = Date.now();
      process.kill(state.pid, 'SIGTERM');
      const deadline = started + flags.timeout * 1000;
      while (isProcessAlive(state.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (isProcessAlive(state.pid)) {
        process.kill(state.pid, 'SIGKILL');
        while (isProcessAlive(state.pid)) await new Promise((r) => setTimeout(r, 50));
        process.stderr.write(
          `scrape-etl up (pid ${state.pid}) did not stop within ${flags.timeout} s of SIGTERM and was killed (SIGKILL); open runs go on at the next start ` +
            `(the embedded server may still run: \`scrape-etl server stop\`); its log: ${upPaths(dataDir).logFile}\n`,
        );
        process.exitCode = EXIT.failed;
        return;
      }
      process.stdout.write(
        `stopped scrape-etl up (pid ${state.pid}) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
      );
    });
}

/** `up --detach`: the same command without --detach, in the background, its output appended to the log. */
async function detach(): Promise<number> {
  const { spawn } = await import('node:child_process');
  const fs = await import('node:fs');
  const { temporalSettings } = await import('../../temporal/settings.js');
  const { liveUp, upPaths } = await import('../up/paths.js');
  const { isProcessAlive } = await import('../../lib/process-alive.js');
  const { fileTail } = await import('../../lib/state-file.js');
  const { dataDir } = temporalSettings();
  const paths = upPaths(dataDir);
  const other = liveUp(dataDir);
  if (other)
    throw new Error(
      `scrape-etl up already runs for ${dataDir} (pid ${other.pid}, since ${other.startedAt}); \`scrape-etl down\` stops it`,
    );
  // A data folder, key or server files another user controls are refused here, in the command the user sees, not
  // in the background process's log (lib/owned-path.ts).
  const { secretKeys } = await import('../../lib/secret-key.js');
  const { readDevServerState } = await import('../../temporal/dev-server.js');
  secretKeys();
  readDevServerState(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const logFd = fs.openSync(paths.logFile, 'a');
  const args = process.argv.slice(2).filter((a) => a !== '--detach');
  fs.writeSync(logFd, `--- ${new Date().toISOString()} scrape-etl ${args.join(' ')} (detached) in ${process.cwd()}\n`);
  const logStart = fs.fstatSync(logFd).size;
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, ...args], {
    detached: true,
    stdio: ['ignore', logFd, logFd],
    env: { ...processSettings().env },
  });
  fs.closeSync(logFd);
  if (child.pid === undefined) throw new Error('could not start scrape-etl up in the background');
  child.unref();
  const pid = child.pid;
  const deadline = Date.now() + DETACH_READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const state = liveUp(dataDir);
    if (state?.pid === pid && state.ready) {
      const screen = fs.readFileSync(paths.logFile, 'utf8').slice(logStart);
      process.stdout.write(
        `${screen
          .split('\n')
          .filter((l) => !/^\d{4}-\d\d-\d\dT/.test(l) && !l.startsWith('Ctrl-C'))
          .join('\n')
          .trimEnd()}\n` +
          `running in the background: pid ${pid}\n  pid file: ${paths.pidFile}\n  log:      ${paths.logFile}   (tail -f ${paths.logFile})\n` +
          'stop it with: scrape-etl down\n',
      );
      return EXIT.ok;
    }
    if (!isProcessAlive(pid)) {
      process.stderr.write(
        `scrape-etl up (pid ${pid}) exited while starting; its log ${paths.logFile}:\n${fileTail(paths.logFile)}\n`,
      );
      return EXIT.failed;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  process.stderr.write(
    `scrape-etl up (pid ${pid}) did not poll within ${DETACH_READY_TIMEOUT_MS / 1000} s; it goes on starting; its log: ${paths.logFile}\n`,
  );
  return EXIT.failed;
}

async function systemdText(flags: UpFlags, settings: Settings): Promise<string> {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { systemdUnit } = await import('../up/systemd.js');
  const { secretKeyFile } = await import('../../lib/secret-key.js');
  // The options of this command line that shape `up` itself go into ExecStart; the unit-only ones do not.
  const args: string[] = [];
  const argv = process.argv.slice(2);
  for (let i = argv.indexOf('up') + 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--print-systemd' || a === '--detach') continue;
    if (a === '--environment-file' || a === '--user') {
      i++;
      continue;
    }
    if (a.startsWith('--environment-file=') || a.startsWith('--user=')) continue;
    args.push(a);
  }
  const dataDir = settings.originOf('dataDir') === 'default' ? undefined : settings.dataDir;
  return systemdUnit({
    node: process.execPath,
    bin: fs.realpathSync(process.argv[1]!),
    cwd: process.cwd(),
    upArgs: args,
    envFile: path.resolve(flags.environmentFile),
    ...(flags.user ? { user: flags.user } : {}),
    ...(dataDir ? { dataDir: path.resolve(dataDir) } : {}),
    keyFile: secretKeyFile(),
  });
}
