// `scrape-etl server status|stop`: the embedded Temporal dev server in the open. `up` runs it for its life; `run`,
// `demo` and `schedule` without `up` stop one they started when they end. These say whether it runs (pid, address,
// UI, state file) and stop it. Its state is a SQLite file under the data folder, so stopping loses nothing: the next
// command that needs it starts it again on the same file, and open runs continue then.
import { EXIT } from '../../lib/exit-codes.js';
import type { Command } from '../../vendor/commander.js';

export function register(program: Command): void {
  const server = program
    .command('server')
    .description('the embedded Temporal dev server (in $SCRAPE_ETL_DATA_DIR or ./data) that `up` runs: status, stop');

  server
    .command('status')
    .description(
      'whether the embedded server runs: pid, address, Web UI, state file; exit 0 when it runs, 1 when it does not',
    )
    .option('--json', 'one JSON object')
    .action(async (flags: { json?: boolean }) => {
      const { temporalSettings } = await import('../../temporal/settings.js');
      const { canConnect, devServerPaths, isProcessAlive, readDevServerState } =
        await import('../../temporal/dev-server.js');
      const { liveUp, upPaths } = await import('../up/paths.js');
      const { dataDir } = temporalSettings();
      const up = liveUp(dataDir);
      const state = readDevServerState(dataDir);
      const running = !!state?.pid && isProcessAlive(state.pid) && (await canConnect(state.port));
      const info = {
        running,
        dataDir,
        pid: running ? state!.pid : null,
        address: state ? `127.0.0.1:${state.port}` : null,
        webUi: state ? `http://127.0.0.1:${state.uiPort}` : null,
        stateFile: state?.dbFile ?? devServerPaths(dataDir).dbFile,
        startedAt: running ? state!.startedAt : null,
        up: up
          ? { pid: up.pid, since: up.startedAt, cwd: up.cwd, workers: up.workers, log: upPaths(dataDir).logFile }
          : null,
      };
      if (flags.json) process.stdout.write(`${JSON.stringify(info)}\n`);
      else if (running) {
        process.stdout.write(
          `embedded Temporal server running: pid ${info.pid}, ${info.address}, Web UI ${info.webUi}, since ${info.startedAt}\n` +
            `state: ${info.stateFile}\nstop it with: scrape-etl server stop\n`,
        );
      } else {
        process.stdout.write(
          state
            ? `embedded Temporal server not running (state kept in ${info.stateFile})\n`
            : `no embedded Temporal server in ${dataDir}\n`,
        );
      }
      if (!flags.json && up) {
        process.stdout.write(
          `scrape-etl up running: pid ${up.pid}, ${up.workers} worker(s), since ${up.startedAt}, in ${up.cwd}; \`scrape-etl down\` stops it\n`,
        );
      }
      // Not running: 1, as every command's "what you asked about is not there" (README, "Exit codes"; 3 is a partial run).
      if (!running) process.exitCode = EXIT.failed;
    });

  server
    .command('stop')
    .description(
      'stop the embedded server (its SQLite state stays; open runs go on when a command starts it again); a running `scrape-etl up` is stopped with `scrape-etl down`',
    )
    .action(async () => {
      const { temporalSettings } = await import('../../temporal/settings.js');
      const { readDevServerState, stopDevServer } = await import('../../temporal/dev-server.js');
      const { liveUp } = await import('../up/paths.js');
      const { dataDir } = temporalSettings();
      // Stopped under a running `up`, its workers would poll a server that is gone until it came back.
      const up = liveUp(dataDir);
      if (up)
        throw new Error(`scrape-etl up (pid ${up.pid}) runs on this embedded server; \`scrape-etl down\` stops both`);
      const pid = readDevServerState(dataDir)?.pid;
      const stopped = await stopDevServer({ dataDir });
      if (stopped)
        process.stdout.write(`stopped the embedded Temporal server (pid ${pid}); its state stays in ${dataDir}\n`);
      else {
        // What was named is not there: 1, as `server status` says of it (README, "Exit codes").
        process.stderr.write(`the embedded Temporal server was not running (${dataDir}); nothing to stop\n`);
        process.exitCode = EXIT.failed;
      }
    });
}
