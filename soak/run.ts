// `npm run soak [-- --minutes 10 --destination sqlite|postgres|duckdb|both|all --seed N --keep]`: the chaos soak of
// soak/soak.ts. The minutes are split between the passes: `all` (the default) runs SQLite, Postgres and DuckDB,
// `both` SQLite and Postgres. Prints one line per
// invariant with its figures and PASS/FAIL (evidence for failures below it) and exits 0 only when all hold.
import { parseArgs } from 'node:util';
import { formatInvariant, runSoak, SOAK_DESTINATIONS, type SoakDestination, type SoakReport } from './soak.js';

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: npm run soak -- [--minutes 10] [--destination sqlite|postgres|duckdb|both|all] [--seed N] [--keep] [--s3]\n`,
  );
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    destination: { type: 'string', default: 'all' },
    seed: { type: 'string' },
    keep: { type: 'boolean', default: false },
    s3: { type: 'boolean', default: false },
  },
});
const minutes = Number(values.minutes);
if (!Number.isFinite(minutes) || minutes <= 0) usage(`--minutes must be a positive number, got '${values.minutes}'`);
const destinations: SoakDestination[] =
  values.destination === 'all'
    ? [...SOAK_DESTINATIONS]
    : values.destination === 'both'
      ? ['sqlite', 'postgres']
      : SOAK_DESTINATIONS.includes(values.destination as SoakDestination)
        ? [values.destination as SoakDestination]
        : usage(`--destination must be sqlite, postgres, duckdb, both or all, got '${values.destination}'`);
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (seed !== undefined && !Number.isInteger(seed)) usage(`--seed must be an integer, got '${values.seed}'`);

const log = (line: string) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const reports: SoakReport[] = [];
for (const destination of destinations) {
  const report = await runSoak({
    destination,
    durationMs: Math.round((minutes * 60_000) / destinations.length),
    ...(seed !== undefined ? { seed } : {}),
    keepDir: values.keep,
    s3: values.s3,
    log,
  });
  reports.push(report);
}

let pass = true;
for (const r of reports) {
  const c = r.chaos;
  process.stdout.write(
    `\n== soak on ${r.destination}: seed ${r.seed}, ${Math.round(r.elapsedMs / 1000)} s; ${c.workerKills} worker SIGKILLs, ${c.unexpectedWorkerExits} unexpected worker exits, ${c.serverKills} dev server SIGKILL+restart, ${c.faultsInjected} faulted of ${c.apiRequests} API requests${c.readerSessions ? `, ${c.readerSessions} foreign read-only sessions` : ''}${values.keep ? `; files in ${r.dir}` : ''}\n`,
  );
  for (const inv of r.invariants) {
    process.stdout.write(`${formatInvariant(inv)}\n`);
    if (!inv.pass) for (const d of inv.details.slice(0, 20)) process.stdout.write(`      ${d}\n`);
  }
  pass &&= r.pass;
}
process.stdout.write(`\nsoak ${pass ? 'PASSED' : 'FAILED'}\n`);
process.exit(pass ? 0 : 1);
