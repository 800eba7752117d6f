// `scrape-etl simulate`: serves the local simulator of the scraping service until SIGINT/SIGTERM.
// The first stdout line is the base URL, so scripts and tests can start it with --port 0 and read where it is.
import { EXIT, signalExitCode } from '../../lib/exit-codes.js';
import { InvalidArgumentError, type Command } from '../../vendor/commander.js';
import { DEFAULT_RUN_DURATION_MS, DEFAULT_SEED, DEV_TOKEN } from '../../simulator/defaults.js';
import { DEFAULT_FAULTS, type FaultConfig } from '../../simulator/faults.js';
import { processSettings } from '../../settings/process.js';

function integer(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}, got '${raw}'.`);
    }
    return n;
  };
}

function rate(name: string) {
  return (raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
      throw new InvalidArgumentError(`${name} must be a number from 0 to 1, got '${raw}'.`);
    return n;
  };
}

// commander maps each fault flag (--error-rate, ...) onto the FaultConfig field of the same name.
interface SimulateOptions extends FaultConfig {
  port: number;
  host: string;
  token?: string;
  seed: number;
  runDurationMs: number;
  runDetailResultsLimit?: number;
  priceDrift?: true | string;
}

export function register(program: Command): void {
  program
    .command('simulate')
    .description(
      'serve a local simulator of the scraping service (deterministic data per seed, fault injection); prints its base URL first',
    )
    .option('--port <n>', 'port to listen on (0 picks a free one)', integer('--port', 0, 65535), 8787)
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--token <token>', `bearer token clients must send (default: env SCRAPER_API_TOKEN, else '${DEV_TOKEN}')`)
    .option('--seed <n>', 'seed of all generated data', integer('--seed', 0), DEFAULT_SEED)
    .option(
      '--run-duration-ms <ms>',
      'how long a scraping run stays running',
      integer('--run-duration-ms', 0),
      DEFAULT_RUN_DURATION_MS,
    )
    .option(
      '--run-detail-results-limit <n>',
      'at most this many results in GET /api/scraping-runs/{id} (default: all)',
      integer('--run-detail-results-limit', 0),
    )
    .option(
      '--latency-ms <ms>',
      'delay before every /api response',
      integer('--latency-ms', 0),
      DEFAULT_FAULTS.latencyMs,
    )
    .option(
      '--error-rate <r>',
      'share of /api requests answered 500/502/503',
      rate('--error-rate'),
      DEFAULT_FAULTS.errorRate,
    )
    .option(
      '--rate-limit-rate <r>',
      'share of /api requests answered 429',
      rate('--rate-limit-rate'),
      DEFAULT_FAULTS.rateLimitRate,
    )
    .option(
      '--retry-after-seconds <s>',
      'Retry-After sent with a 429',
      integer('--retry-after-seconds', 0),
      DEFAULT_FAULTS.retryAfterSeconds,
    )
    .option(
      '--malformed-rate <r>',
      'share of 200 answers whose JSON breaks the schema',
      rate('--malformed-rate'),
      DEFAULT_FAULTS.malformedRate,
    )
    .option(
      '--truncated-rate <r>',
      'share of 200 answers whose body is cut short',
      rate('--truncated-rate'),
      DEFAULT_FAULTS.truncatedRate,
    )
    .option(
      '--dropped-rate <r>',
      'share of 200 answers whose connection drops mid-body',
      rate('--dropped-rate'),
      DEFAULT_FAULTS.droppedRate,
    )
    .option(
      '--run-failure-rate <r>',
      "share of scraping runs that end 'failed'",
      rate('--run-failure-rate'),
      DEFAULT_FAULTS.runFailureRate,
    )
    .option(
      '--run-hang-rate <r>',
      'share of scraping runs that never finish',
      rate('--run-hang-rate'),
      DEFAULT_FAULTS.runHangRate,
    )
    .option(
      '--price-drift [every]',
      'marketplace prices and stock change between epochs, deterministically per seed; the epoch advances with POST /_sim/drift {"advance": true}, or every <duration> (e.g. 1m, 30s)',
    )
    .action(async (opts: SimulateOptions) => {
      let priceDrift: boolean | { everyMs: number } = false;
      if (opts.priceDrift !== undefined) {
        if (opts.priceDrift === true) priceDrift = true;
        else {
          const { isDuration, parseDurationMs } = await import('../../pipelines/duration.js');
          if (!isDuration(opts.priceDrift))
            throw Object.assign(
              new Error(`--price-drift: expected a duration such as '1m' or '30s', got '${opts.priceDrift}'`),
              { exitCode: EXIT.usage },
            );
          priceDrift = { everyMs: parseDurationMs(opts.priceDrift) };
        }
      }
      const faults = Object.fromEntries(
        Object.keys(DEFAULT_FAULTS).map((k) => [k, opts[k as keyof FaultConfig]]),
      ) as unknown as FaultConfig;
      const envToken = processSettings().scraperApiToken;
      const token = opts.token ?? (envToken !== undefined && envToken !== '' ? envToken : DEV_TOKEN);
      // Handlers go in before the URL is printed: a supervisor may signal as soon as it has read that line.
      const stopped = new Promise<NodeJS.Signals>((resolve) => {
        const stop = (sig: NodeJS.Signals): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve(sig);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      const { startSimulator } = await import('../../simulator/server.js');
      const sim = await startSimulator({
        port: opts.port,
        host: opts.host,
        token,
        seed: opts.seed,
        runDurationMs: opts.runDurationMs,
        ...(opts.runDetailResultsLimit !== undefined ? { runDetailResultsLimit: opts.runDetailResultsLimit } : {}),
        faults,
        ...(priceDrift !== false ? { priceDrift } : {}),
      });
      process.stdout.write(`${sim.baseUrl}\n`);
      // The token itself is never printed; only where it came from.
      const tokenSource =
        opts.token !== undefined
          ? '--token'
          : token === DEV_TOKEN
            ? `the dev token '${DEV_TOKEN}'`
            : 'SCRAPER_API_TOKEN';
      process.stderr.write(
        `simulator listening on ${sim.baseUrl} (seed ${opts.seed}, runs take ${opts.runDurationMs} ms, token from ${tokenSource}${priceDrift === false ? '' : `, price drift ${priceDrift === true ? 'on POST /_sim/drift {"advance": true}' : `every ${String(opts.priceDrift)}`}`}); Ctrl-C stops it\n`,
      );
      const signal = await stopped;
      await sim.close();
      // Ended by a signal: its code, as every command (README, "Exit codes").
      process.exitCode = signalExitCode(signal);
    });
}
