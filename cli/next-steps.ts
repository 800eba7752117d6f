// The "do this next" lines `run` prints after a run: complete commands a person can paste as they are (a test runs
// them verbatim), and the lines about the run's alerts. Light module: no SDK, no database driver.
import fs from 'node:fs';
import path from 'node:path';
import { destinationKey, redactDatabaseUrl } from '../db/model/url.js';
import type { ExportSpec, PipelineSpec } from '../pipelines/spec.js';
import type { AlertOutcome } from '../temporal/contract.js';
import { processSettings } from '../settings/process.js';
import type { Env } from '../settings/settings.js';

/** A word for a POSIX shell: as it is when it holds only safe characters, else in single quotes. */
export function shellWord(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Whether `dir` is `root` or inside it. */
function within(dir: string, root: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(dir));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function realpath(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

/**
 * How to type this tool in a printed command, as the user invoked it, for a command run in `runsIn`:
 * - launched by npm (npx, `npm exec`, an npm script: npm sets npm_command) and `runsIn` inside the npm project it
 *   ran in (npm_config_local_prefix): `npx scrape-etl`, which finds the tool again from there (a bare `scrape-etl`
 *   worked only on the PATH npm gave its child);
 * - `scrape-etl` when the user's PATH finds this very file first (a global install, a link on PATH);
 * - else `node <this script>`, which works from any folder (`node bin/scrape-etl.js`, npx with the next command in
 *   a folder outside its project).
 */
export function toolCommand(
  runsIn: string = process.cwd(),
  env: Env = processSettings().env,
  script: string | undefined = process.argv[1],
): string {
  const prefix = env['npm_config_local_prefix'];
  if (env['npm_command'] !== undefined && prefix && within(runsIn, prefix)) return 'npx scrape-etl';
  const self = script === undefined ? undefined : realpath(script);
  if (self === undefined) return 'scrape-etl';
  for (const dir of (env['PATH'] ?? '').split(path.delimiter)) {
    if (dir === '' || !path.isAbsolute(dir)) continue;
    const found = realpath(path.join(dir, 'scrape-etl'));
    if (found === undefined) continue;
    // The first `scrape-etl` on PATH is what a shell runs: this tool, or another one (then not the bare word).
    if (found === self) return 'scrape-etl';
    break;
  }
  return `node ${shellWord(self)}`;
}

/**
 * The --database argument that names the run's destination from any folder: a SQLite or DuckDB path made absolute.
 * A Postgres URL with a password is not printed: "$DATABASE_URL" when that is where it came from, else the URL with
 * the password as *** and `passwordLeftOut` set, so the caller says to put it back.
 */
function databaseArgument(url: string, env: Env): { arg: string; passwordLeftOut: boolean } {
  const key = destinationKey(url);
  if (redactDatabaseUrl(url) === url) return { arg: shellWord(key), passwordLeftOut: false };
  if (env['DATABASE_URL']?.trim() === url.trim()) return { arg: '"$DATABASE_URL"', passwordLeftOut: false };
  return { arg: shellWord(redactDatabaseUrl(url)), passwordLeftOut: true };
}

/** The `scrape-etl export` command that writes one of the pipeline's export entries as the run would have. */
export function reexportCommand(
  spec: PipelineSpec,
  e: ExportSpec,
  env: Env = processSettings().env,
): { command: string; passwordLeftOut: boolean } {
  const db = databaseArgument(spec.destination.database, env);
  const words = [
    toolCommand(process.cwd(), env),
    'export',
    '--database',
    db.arg,
    '--pipeline',
    shellWord(spec.name),
    '--format',
    shellWord(e.format ?? 'csv'),
    ...(e.to !== undefined
      ? [
          '--to',
          shellWord(e.to),
          ...(e.partition_by?.length ? ['--partition-by', shellWord(e.partition_by.join(','))] : []),
        ]
      : ['--out', shellWord(path.resolve(e.dir ?? '.')), '--file-name', shellWord(e.file_name)]),
  ];
  if (e.tables.length > 0) words.push('--tables', shellWord(e.tables.join(',')));
  if (e.mode === 'incremental') {
    words.push('--since-last');
    if (e.write_empty) words.push('--write-empty');
  }
  if ((e.format ?? 'csv') === 'csv') {
    if (e.delimiter !== ',') words.push('--delimiter', shellWord(e.delimiter === '\t' ? 'tab' : e.delimiter));
    if (e.bom) words.push('--bom');
    if (e.null_text !== '') words.push('--null-text', shellWord(e.null_text));
  }
  if (!e.neutralize_formulas) words.push('--no-neutralize-formulas');
  return { command: words.join(' '), passwordLeftOut: db.passwordLeftOut };
}

/** What `run` prints when the data loaded but the exports failed: the reason, then one complete command per entry. */
export function exportFailureLines(
  spec: PipelineSpec,
  exportError: string | null,
  env: Env = processSettings().env,
): string[] {
  const commands = spec.exports.map((e) => reexportCommand(spec, e, env));
  const lines = [
    `pipeline ${spec.name}: the data loaded, but the exports failed: ${exportError ?? 'unknown error'}`,
    `once that is fixed, write them again with:`,
    ...commands.map((c) => `  ${c.command}`),
  ];
  if (commands.some((c) => c.passwordLeftOut))
    lines.push('  (the database password is shown as ***: put yours in its place)');
  return lines;
}

/** What `run` says about the run's alerts: nothing when delivered (or none were due), the failure otherwise. */
export function alertLines(spec: PipelineSpec, alerts: AlertOutcome | undefined): string[] {
  if (alerts?.status !== 'failed') return [];
  return [`pipeline ${spec.name}: alert not delivered: ${alerts.error ?? 'unknown reason'}`];
}
