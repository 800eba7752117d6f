// `scrape-etl load <kind> <files...>`: loads saved service responses into the database, exactly as a pipeline
// would (raw landing + flatten + idempotent upsert, each file atomic). Every file is parsed and
// validated before anything is written, so a bad file stops the command with nothing half-loaded. The validation
// pass keeps what it validated while that fits a fixed budget (HOLD_BYTES), so a load of that size reads, parses
// and validates each file once; files past the budget are read and validated again when their turn comes, so
// memory does not grow with their number. Inputs may be files, directories, glob patterns and path lists
// (cli/load-inputs.ts).
import { EXIT } from '../../lib/exit-codes.js';
import crypto from 'node:crypto';
import path from 'node:path';
import { InvalidArgumentError, type Command } from '../../vendor/commander.js';
import { toIssues } from '../../client/validate.js';
import type { FlattenInput } from '../../db/model/flatten/index.js';
import { LOAD_KINDS, type LoadKind } from '../../db/model/flatten/load-kinds.js';
import { runRowTotals } from '../../db/model/table-names.js';
import type { LoadBatchResult } from '../../db/store/load.js';
import { PIPELINE_KINDS, type PipelineKind } from '../../pipelines/spec.js';
import { InputFileError, readInputTextSync } from '../../lib/input-file.js';
import { addDatabaseOption } from '../options.js';

/**
 * Files per transaction in pass 2, and the raw bytes a group may hold. Past ~50 files the commit's share of the
 * time is small; the byte cap keeps a group of large files from holding much memory.
 */
const GROUP_FILES = 64;
const GROUP_BYTES = 16 * 1024 * 1024;

/**
 * Bytes of file text whose validated contents the validation pass keeps for the load. A kept file costs a few times
 * its text in memory (its validated value and its raw body; docs/measurements.md), so this bounds what the pass
 * holds while sparing a load of that size the second read, parse and validation of every file.
 */
export const HOLD_BYTES = 8 * 1024 * 1024;

export class LoadInputError extends Error {
  readonly exitCode = EXIT.usage;
}

export interface PreparedFile {
  file: string;
  input: FlattenInput;
  raw: string;
  requestKey: string;
  endpoint: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// zod, the response schemas, lossless-json and the database drivers are loaded in the functions and the action
// that use them, not at the top, so that registering the command for --help stays cheap (see cli/main.ts).

interface ValidFile {
  text: string;
  /** The text may hold integers beyond the safe range (lib/json.ts parseJsonTelling): only then is stringifyJson needed. */
  lossless: boolean;
  wrapped: boolean;
  request: unknown;
  response: unknown;
  data: unknown;
}

/**
 * Reads and validates one file. The file holds either the response body itself, or a wrapper
 * `{"request": {...}, "response": {...}}`: the request makes a job-board file's record types checkable and
 * gives the request key (the URL) for lineage.
 */
async function readValid(kind: LoadKind, file: string): Promise<ValidFile> {
  const { parseJsonTelling } = await import('../../lib/json.js');
  let text: string;
  try {
    text = readInputTextSync(file, 'load');
  } catch (err) {
    if (err instanceof InputFileError) throw new LoadInputError(err.message);
    throw new LoadInputError(`${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let doc: unknown;
  let lossless: boolean;
  try {
    ({ value: doc, lossless } = parseJsonTelling(text));
  } catch (err) {
    throw new LoadInputError(`${file}: not valid JSON: ${(err as Error).message}`);
  }
  const wrapped =
    isObject(doc) && 'response' in doc && Object.keys(doc).every((k) => k === 'request' || k === 'response');
  const request = wrapped ? (doc as Record<string, unknown>)['request'] : undefined;
  const response = wrapped ? (doc as Record<string, unknown>)['response'] : doc;
  const prefix = wrapped ? 'response' : '';
  const { RESPONSE_KINDS } = await import('../../kinds/responses.js');
  const schema = RESPONSE_KINDS[kind].schemaFor(request);
  if ('error' in schema) throw new LoadInputError(`${file}: ${schema.error}`);
  const parsed = schema.safeParse(response);
  if (!parsed.success) {
    const issues = toIssues(parsed.error, response);
    const first = issues[0] ?? { path: '', message: 'invalid' };
    const where = !prefix
      ? first.path || '<root>'
      : !first.path
        ? prefix
        : first.path.startsWith('[')
          ? prefix + first.path
          : `${prefix}.${first.path}`;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})` : '';
    throw new LoadInputError(`${file}: ${where}: ${first.message}${more} [not a valid ${kind} response]`);
  }
  return { text, lossless, wrapped, request, response, data: parsed.data };
}

/** What loadBatch needs of a file read and validated. */
async function preparedOf(kind: LoadKind, file: string, valid: ValidFile): Promise<PreparedFile> {
  const { stringifyJson } = await import('../../lib/json.js');
  const { RESPONSE_KINDS } = await import('../../kinds/responses.js');
  const { text, lossless, wrapped, request, response, data } = valid;
  const url = isObject(request) && typeof request['url'] === 'string' ? request['url'] : undefined;
  return {
    file,
    input: { kind, data } as FlattenInput,
    // Unwrapped files are landed byte for byte; a wrapper's response is re-serialised (bigints exact).
    raw: !wrapped ? text : lossless ? stringifyJson(response) : JSON.stringify(response),
    requestKey: url ?? `file:${path.resolve(file)}`,
    endpoint: RESPONSE_KINDS[kind].endpoint,
  };
}

/** Reads and validates one file, and returns what loadBatch needs. */
export async function prepareFile(kind: LoadKind, file: string): Promise<PreparedFile> {
  return preparedOf(kind, file, await readValid(kind, file));
}

/** The validation pass: every file's problem, and what was validated of the first files, within `holdBytes`. */
export interface ValidationPass {
  problems: string[];
  /** Per file (same index): its prepared contents when the pass kept them, else undefined (read it again). */
  held: Array<PreparedFile | undefined>;
}

/**
 * Reads and validates every file. The files are kept, prepared, from the first while their text adds up to at most
 * `holdBytes` and none is invalid: a kept file is loaded as it was validated, without reading it again.
 */
export async function validateFiles(
  kind: LoadKind,
  files: readonly string[],
  holdBytes = HOLD_BYTES,
): Promise<ValidationPass> {
  const problems: string[] = [];
  const held: Array<PreparedFile | undefined> = [];
  let heldBytes = 0;
  let holding = true;
  for (const file of files) {
    let valid: ValidFile;
    try {
      valid = await readValid(kind, file);
    } catch (err) {
      if (!(err instanceof LoadInputError)) throw err;
      problems.push(err.message);
      // Nothing will be loaded: what was kept is let go, and nothing more is kept.
      holding = false;
      held.length = 0;
      continue;
    }
    holding &&= heldBytes + valid.text.length <= holdBytes;
    if (!holding) continue;
    heldBytes += valid.text.length;
    held.push(await preparedOf(kind, file, valid));
  }
  return { problems, held };
}

function parsePositive(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0)
      throw new InvalidArgumentError(`${name} must be a positive number, got '${value}'`);
    return n;
  };
}

export function register(program: Command): void {
  const cmd = program
    .command('load')
    .description('load saved service responses (JSON files) into the database: raw landing + idempotent upserts')
    .argument('<kind>', `response kind: ${LOAD_KINDS.join(', ')}`)
    .argument(
      '[inputs...]',
      'JSON files, each a response body or {"request": ..., "response": ...}; directories (every *.json below them); ' +
        "quoted glob patterns ('saved/**/*.json', expanded by the command); - to read a list of paths from stdin",
    )
    .option(
      '--from <list>',
      'read inputs from a file, one path, directory or pattern per line (repeatable)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    );
  addDatabaseOption(
    cmd,
    "destination: 'sqlite:<path>', 'duckdb:<path>' or 'postgres://...' (default: DATABASE_URL, else the project's destination, else sqlite:./data/scrape-etl.sqlite)",
  )
    .option('--pipeline <name>', 'pipeline name recorded as lineage on every row', 'cli-load')
    .option('--pipeline-kind <kind>', `which result table results go to (${PIPELINE_KINDS.join(', ')})`)
    .option(
      '--price-divisor <n>',
      'integer price / divisor = major-unit price',
      parsePositive('--price-divisor'),
      100_000,
    )
    .action(
      async (
        kindArg: string,
        inputs: string[],
        opts: { database?: string; from: string[]; pipeline: string; pipelineKind?: string; priceDivisor: number },
      ) => {
        const { databaseFileOf, defaultDatabaseUrl, openDatabase, parseDatabaseUrl } =
          await import('../../destinations/open.js');
        const { loadGroups } = await import('../../db/store/load.js');
        const { KINDS } = await import('../../kinds/index.js');
        const { addCounts, finishPipelineRun, keptOutOfRun, seenRowsOfRun, startPipelineRun, sumTokenUsageOfRun } =
          await import('../../db/store/pipeline-runs.js');
        if (!(LOAD_KINDS as readonly string[]).includes(kindArg)) {
          throw new LoadInputError(`unknown kind '${kindArg}': expected one of ${LOAD_KINDS.join(', ')}`);
        }
        const kind = kindArg as LoadKind;
        if (opts.pipelineKind !== undefined && !(PIPELINE_KINDS as readonly string[]).includes(opts.pipelineKind)) {
          throw new LoadInputError(
            `unknown --pipeline-kind '${opts.pipelineKind}': expected one of ${PIPELINE_KINDS.join(', ')}`,
          );
        }
        if (!/^[a-z0-9][a-z0-9_-]*$/.test(opts.pipeline)) {
          throw new LoadInputError(`--pipeline '${opts.pipeline}' must match ^[a-z0-9][a-z0-9_-]*$`);
        }
        const { expandInputs } = await import('../load-inputs.js');
        const files = await expandInputs({ args: inputs, from: opts.from });

        // Pass 1: every file is read and validated before anything is written. What was validated is kept for the
        // load only within HOLD_BYTES: holding every parsed body until the load would grow memory with the input.
        const { problems, held } = await validateFiles(kind, files);
        if (problems.length > 0) {
          throw new LoadInputError(
            `${problems.join('\n')}\nnothing loaded (${problems.length} of ${files.length} file${files.length === 1 ? '' : 's'} invalid)`,
          );
        }

        const db = await openDatabase(opts.database ?? defaultDatabaseUrl());
        const { diskFullMessage, finaliseOrphanedLoads, loadRunId } = await import('../../db/store/orphaned-runs.js');
        const where = databaseFileOf(parseDatabaseUrl(db.url)) ?? db.url;
        // Rows of earlier loads whose process is gone (Ctrl-C, killed, out of disk) say so instead of 'running'.
        for (const id of await finaliseOrphanedLoads(db))
          process.stderr.write(
            `scrape-etl: the load ${id} had ended without finishing; its run is now marked interrupted\n`,
          );
        const workflowId = loadRunId(new Date(), crypto.randomBytes(4).toString('hex'));
        const totals: Record<string, number> = {};
        try {
          await startPipelineRun(db, { workflowId, pipeline: opts.pipeline, kind: `load:${kind}` });
          try {
            // Pass 2: each file is loaded, as pass 1 kept it or read and validated again, a group at a time
            // (db/store/load.ts loadBatches: one transaction per group, written as one on Postgres and DuckDB, a
            // savepoint per file on SQLite), so each file is still atomic while BEGIN/COMMIT is paid once per group;
            // memory holds two groups' raw bodies (one written, one prepared) beside what pass 1 kept. A file read
            // again that changed since pass 1 so that it no longer validates, or a file that fails to load, stops the
            // command there, with every file before it loaded.
            const report = (p: PreparedFile, res: LoadBatchResult) => {
              addCounts(totals, res.changedByTable);
              const summary = Object.entries(res.rowsByTable)
                .map(([t, n]) => `${t}=${n}${res.changedByTable[t] ? ` (${res.changedByTable[t]} changed)` : ''}`)
                .join(', ');
              process.stdout.write(`loaded ${p.file}: load_id=${res.loadId} ${summary || '(no rows)'}\n`);
            };
            // Files are read, validated and flattened for the next group while the current one is written
            // (db/store/load.ts loadGroups); `pending` holds the files of the groups handed over, in order.
            const pending: PreparedFile[][] = [];
            const toOptions = (p: PreparedFile) => ({
              ...p.input,
              pipeline: opts.pipeline,
              endpoint: p.endpoint,
              requestKey: p.requestKey,
              raw: p.raw,
              priceDivisor: opts.priceDivisor,
              workflowId,
              ...(opts.pipelineKind ? { resultTable: KINDS[opts.pipelineKind as PipelineKind].resultTable } : {}),
            });
            async function* groupsOfFiles() {
              let group: PreparedFile[] = [];
              let groupBytes = 0;
              for (const [i, file] of files.entries()) {
                const p = held[i] ?? (await prepareFile(kind, file));
                // Let go as it is handed over: what pass 1 kept shrinks as the load goes.
                held[i] = undefined;
                group.push(p);
                groupBytes += p.raw.length;
                if (group.length >= GROUP_FILES || groupBytes >= GROUP_BYTES) {
                  pending.push(group);
                  yield group.map(toOptions);
                  group = [];
                  groupBytes = 0;
                }
              }
              if (group.length > 0) {
                pending.push(group);
                yield group.map(toOptions);
              }
            }
            for await (const out of loadGroups(db, groupsOfFiles())) {
              const group = pending.shift()!;
              out.results.forEach((res, i) => report(group[i]!, res));
              if (out.failed) {
                const err = out.failed.error instanceof Error ? out.failed.error : new Error(String(out.failed.error));
                err.message = `${group[out.failed.index]!.file}: ${err.message}`;
                throw err;
              }
            }
            await finishPipelineRun(db, {
              workflowId,
              status: 'succeeded',
              rowsByTable: totals,
              seenByTable: await seenRowsOfRun(db, workflowId, totals),
              tokenUsage: await sumTokenUsageOfRun(db, workflowId),
              keptOut: await keptOutOfRun(db, workflowId),
            });
          } catch (err) {
            // A full disk is one line naming the file, not a driver's stack; the row is finished (on a disk too full
            // even for that, the next load finalises it: its process is gone).
            const full = diskFullMessage(err, where);
            await finishPipelineRun(db, {
              workflowId,
              status: 'failed',
              rowsByTable: totals,
              error: full ?? (err as Error).message,
            }).catch(() => {});
            if (full) throw new Error(full);
            throw err;
          }
          // Data rows as `run` and `status` count them; bookkeeping rows (results' run records) apart.
          const { changed, bookkeeping } = runRowTotals(totals, null);
          const apart = bookkeeping > 0 ? `, and ${bookkeeping} bookkeeping row${bookkeeping === 1 ? '' : 's'}` : '';
          process.stdout.write(
            `${files.length} file${files.length === 1 ? '' : 's'} loaded into ${db.url}; ${changed} row${changed === 1 ? '' : 's'} inserted or changed${apart}\n`,
          );
        } finally {
          await db.close();
        }
      },
    );
}
