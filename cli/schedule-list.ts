// `scrape-etl schedule list` without the Temporal SDK: one ListSchedules call over HTTP/2 (temporal/list-schedules.ts),
// to TEMPORAL_ADDRESS (TLS and API key as configured) or the embedded dev server (started when not running, as
// every Temporal command does). The output and the exit codes are those of the SDK path it replaced: 1 when
// Temporal cannot be reached or the namespace does not exist, 2 for a malformed setting (README, "Exit codes").
import { EXIT } from '../lib/exit-codes.js';
import type { Logger } from './logger.js';
import { logsAt } from './log-level.js';

export interface ListFlags {
  json?: boolean;
  verbose?: boolean;
}

/** An error of this command with the README's exit code (1: Temporal unreachable, a namespace not there). */
function failed(message: string, cause: unknown): Error & { exitCode: number } {
  return Object.assign(new Error(message, { cause }), { exitCode: EXIT.failed });
}

export async function listSchedulesCommand(flags: ListFlags): Promise<void> {
  const { temporalSettings } = await import('../temporal/settings.js');
  const settings = temporalSettings();
  // pino only when a line would show (-v, SCRAPE_ETL_LOG_LEVEL): the default level prints nothing here.
  let log: Logger | undefined;
  if (logsAt('info', flags)) log = (await import('./logger.js')).createLogger({ verbose: flags.verbose ?? false });
  let address = settings.address;
  // A server this command has just started accepts TCP before it serves gRPC (temporal/connect.ts): its first
  // answers are retried within the server's start budget; an existing one gets one try within 10 s.
  let budgetMs = 10_000;
  let justStarted = false;
  let release: (() => Promise<boolean>) | undefined;
  if (address === undefined) {
    const { ensureDevServer, releaseDevServer } = await import('../temporal/dev-server.js');
    // Transient: a server started to list stops when the list is printed (temporal/dev-server.ts).
    const server = await ensureDevServer({
      dataDir: settings.dataDir,
      namespace: settings.namespace,
      transient: true,
      ...(log ? { log: (m: string) => log.info(m) } : {}),
    });
    release = () => releaseDevServer({ dataDir: settings.dataDir });
    address = server.address;
    if (server.started) {
      budgetMs = 60_000;
      justStarted = true;
    }
  }
  const where = `${address}${settings.address ? ' (TEMPORAL_ADDRESS)' : ' (embedded dev server)'}`;
  const { listSchedules, GrpcConnectError, GrpcStatusError, NamespaceNotFoundError } =
    await import('../temporal/list-schedules.js');
  const deadline = Date.now() + budgetMs;
  log?.debug({ address: where, namespace: settings.namespace }, 'listing schedules');
  try {
    for (;;) {
      const lines: string[] = [];
      try {
        for await (const s of listSchedules({ settings, address, timeoutMs: Math.max(1000, deadline - Date.now()) })) {
          const next = s.nextActionTime?.toISOString() ?? '-';
          lines.push(
            flags.json
              ? JSON.stringify({
                  scheduleId: s.scheduleId,
                  paused: s.paused,
                  nextActionTime: next === '-' ? null : next,
                })
              : `${s.scheduleId}\t${s.paused ? 'paused' : 'active'}\tnext ${next}`,
          );
        }
      } catch (err) {
        const transient =
          err instanceof GrpcConnectError ||
          (err instanceof GrpcStatusError && err.code === 14) ||
          err instanceof NamespaceNotFoundError;
        if (justStarted && transient && Date.now() + 200 < deadline) {
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        if (err instanceof NamespaceNotFoundError) throw failed(err.message, err);
        // Unreachable, or a rejected certificate or API key: the connection, as the SDK path said it.
        if (err instanceof GrpcConnectError || (err instanceof GrpcStatusError && [7, 14, 16].includes(err.code))) {
          throw failed(`cannot connect to Temporal at ${where}: ${(err as Error).message}`, err);
        }
        throw failed(`Failed to list schedules: ${(err as Error).message}`, err);
      }
      // Printed once the whole list is read, so that a failure on a later page prints no partial list.
      if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
      else if (!flags.json) process.stdout.write('no schedules\n');
      return;
    }
  } finally {
    await release?.();
  }
}
