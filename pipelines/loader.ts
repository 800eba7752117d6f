/**
 * Reads one pipeline file (YAML, or JSON, which YAML parses with the same positions) into a PipelineSpec.
 * Every problem of the file is collected before failing: YAML syntax, environment references, secrets written
 * into the file, and schema violations, each mapped back to the line and column of the offending node.
 */
import path, { dirname, resolve } from 'node:path';
import { InputFileError, INPUT_KINDS, inputLines, readInputText } from '../lib/input-file.js';
import { anchorDatabaseUrl, isInsideFolder, projectRootAbove } from '../lib/project-root.js';
import { closest, distance } from 'fastest-levenshtein';
import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  Parser,
  parse as parseYaml,
  parseDocument,
  visit,
  Scalar,
} from '../vendor/yaml.js';
import type { Document, Node, Pair } from '../vendor/yaml.js';
import type { z } from 'zod';
import { formatPath, PipelineFileError, suggestionOf } from './errors.js';
import type { PipelineIssue } from './errors.js';
import { interpolate } from './env.js';
import { defaultDatabaseUrl, pipelineBaseSchema, pipelineSchemaFor } from './schema.js';
import type { PipelineSpec } from './spec.js';
import { isLocalTarget, localTargetPath } from '../export/targets/index.js';
import { URLS_FILE_KEY, urlsFileField } from './urls-file.js';
import { projectBudgetOf } from './project-budget.js';
import { aliasExpansionProblem, MAX_NESTING, parseDocumentWithin } from './yaml-limits.js';
import { SETTINGS } from '../settings/definition.js';
import { processSettings, settingsFor } from '../settings/process.js';
import type { Env } from '../settings/settings.js';

export { MAX_ALIAS_EXPANSION, MAX_NESTING } from './yaml-limits.js';

export interface LoadOptions {
  /** Environment for `${VAR}` references and the token check; default this process's settings' (settings/). */
  env?: Env;
  /** The list `request.urls_file` names, read by loadPipelineFile (parsePipelineText alone cannot read files). */
  urlsFile?: UrlsFileList;
}

/** A URL list read from the file a pipeline's `request.urls_file` names: one URL a line. */
export interface UrlsFileList {
  /** As resolved (relative to the pipeline file's folder). */
  path: string;
  urls: string[];
  /** The line of each URL (1-based), for errors. */
  lines: number[];
}

const TOKEN_ENV = 'SCRAPER_API_TOKEN';

const SECRET_KEY = /token|api[_-]?key|secret|passw(or)?d/i;
const SECRET_ADVICE = `set ${TOKEN_ENV} in the worker's environment instead`;

export async function loadPipelineFile(file: string, opts: LoadOptions = {}): Promise<PipelineSpec> {
  let text: string;
  try {
    text = await readInputText(file, 'pipeline', opts.env ?? processSettings().env);
  } catch (err) {
    const reason =
      err instanceof InputFileError
        ? `the file ${err.reason}; ${err.fix}`
        : (err as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'file not found'
          : (err as Error).message;
    throw new PipelineFileError(file, [{ file, line: 1, col: 1, path: '<file>', message: reason }]);
  }
  const named = urlsFileNamed(text);
  let spec: PipelineSpec;
  if (named === undefined) spec = parsePipelineText(text, file, opts);
  else {
    const resolved = path.resolve(path.dirname(file), named);
    let list: UrlsFileList;
    try {
      list = await readUrlsFile(resolved, opts.env ?? processSettings().env);
    } catch (err) {
      const message =
        err instanceof InputFileError
          ? `${resolved} ${err.reason}; ${err.fix === INPUT_KINDS.urls.tooBig ? err.fix : 'name a regular file with one URL a line'}`
          : `cannot read ${resolved}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message}`;
      const pos = await positionInPipelineFile(file, ['request', 'urls_file']);
      throw new PipelineFileError(file, [
        { file, line: pos?.line ?? 1, col: pos?.col ?? 1, path: 'request.urls_file', message },
      ]);
    }
    spec = parsePipelineText(text, file, { ...opts, urlsFile: list });
  }
  // In a project (a scrape-etl.yaml above the file), relative paths of the file are the project root's: the same
  // database and export folder from any subfolder. Outside a project they stay relative to the current folder.
  const root = projectRootAbove(dirname(resolve(file)));
  await confineExports(file, spec, root, opts.env ?? processSettings().env);
  if (root === undefined) return spec;
  const projectBudget = await projectBudgetOf(root);
  // A destination the file does not name comes from DATABASE_URL (or the default), whose relative path, like any
  // environment variable's, stays the current folder's.
  const fromFile = spec.destination.database !== defaultDatabaseUrl(opts.env ?? processSettings().env);
  return {
    ...spec,
    destination: {
      ...spec.destination,
      database: fromFile ? anchorDatabaseUrl(spec.destination.database, root) : spec.destination.database,
    },
    exports: spec.exports.map((e) => ({
      ...e,
      ...(e.dir !== undefined ? { dir: resolve(root, e.dir) } : {}),
      ...(e.to !== undefined && isLocalTarget(e.to) ? { to: resolve(root, localTargetPath(e.to)) } : {}),
    })),
    ...(projectBudget ? { project_budget: projectBudget } : {}),
  };
}

/** Where exports may be written: the variable (or the project file's `exports_root:`) beside the default folders. */
export const EXPORTS_ROOT_ENV = SETTINGS.exportsRoot.env;

/**
 * An export folder written in a pipeline file stays inside the project's folder (without a project: the current
 * folder or the pipeline file's), or inside `exports_root` when the project file (or SCRAPE_ETL_EXPORTS_ROOT) allows
 * one: a file is not to write wherever its author likes (`dir: ../../etc/x` wrote there). Symbolic links are resolved.
 * `scrape-etl export --out`, given on the command line, is the user's own choice and not confined.
 */
async function confineExports(file: string, spec: PipelineSpec, root: string | undefined, env: Env): Promise<void> {
  const allowed = settingsFor(env).exportsRoot;
  const roots = [
    ...(root !== undefined ? [root] : [process.cwd(), dirname(resolve(file))]),
    ...(allowed ? [resolve(allowed)] : []),
  ];
  const issues: PipelineIssue[] = [];
  for (const [i, e] of spec.exports.entries()) {
    // A lake in a local folder is a folder the file writes to, as dir: is; s3:// is the store's own.
    const key = e.dir !== undefined ? 'dir' : 'to';
    const named = e.dir ?? (e.to !== undefined && isLocalTarget(e.to) ? localTargetPath(e.to) : undefined);
    if (named === undefined) continue;
    const dir = resolve(root ?? process.cwd(), named);
    if (roots.some((r) => isInsideFolder(dir, r))) continue;
    const pos = await positionInPipelineFile(file, ['exports', i, key]);
    const where =
      root !== undefined
        ? `the project (${root})`
        : `the current folder (${roots[0]}) and the pipeline file's folder (${roots[1]})`;
    const allow = allowed ? `, nor in ${EXPORTS_ROOT_ENV}'s ${resolve(allowed)}` : '';
    const fix =
      root !== undefined
        ? 'or allow a folder outside the project with exports_root: <folder> in scrape-etl.yaml'
        : `or allow another folder with ${EXPORTS_ROOT_ENV}=<folder> (in a project: exports_root: in scrape-etl.yaml)`;
    issues.push({
      file,
      line: pos?.line ?? 1,
      col: pos?.col ?? 1,
      path: `exports[${i}].${key}`,
      message: `the export folder ${dir} is not in ${where}${allow}; write inside ${root !== undefined ? 'it' : 'one of them'} (e.g. dir: exports), ${fix}`,
    });
  }
  if (issues.length > 0) throw new PipelineFileError(file, issues);
}

/** `request.urls_file` of a pipeline's text when it is a string (the full parse reports everything else). */
function urlsFileNamed(text: string): string | undefined {
  if (!text.includes('urls_file')) return undefined;
  try {
    const js = parseYaml(text, { maxAliasCount: 100 }) as { request?: { urls_file?: unknown } } | null;
    const v = js?.request?.urls_file;
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One URL a line, read as a stream (a list of any length never becomes one string) from a regular file of at most
 * SCRAPE_ETL_MAX_URLS_FILE_BYTES (lib/input-file.ts); blank lines and # comments skipped.
 */
export async function readUrlsFile(file: string, env: Env = processSettings().env): Promise<UrlsFileList> {
  const urls: string[] = [];
  const lines: number[] = [];
  let n = 0;
  for await (const raw of inputLines(file, 'urls', env)) {
    n++;
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    urls.push(line);
    lines.push(n);
  }
  return { path: file, urls, lines };
}

type Path = Array<string | number>;

/**
 * line:col of the value at `path` in a pipeline file, for problems found after loading (pipelines/preflight.ts
 * probes the destination): they are reported at the same place as the loader's own. Undefined when the file does
 * not hold that value (a default applied by the loader) or cannot be read again.
 */
export async function positionInPipelineFile(
  file: string,
  path: Path,
): Promise<{ line: number; col: number } | undefined> {
  let text: string;
  try {
    text = await readInputText(file, 'pipeline');
  } catch {
    return undefined;
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, merge: false });
  const found = locate(doc, path);
  const offset = found.complete ? nodeStart(found.node) : undefined;
  return offset === undefined ? undefined : lineCounter.linePos(offset);
}

/** notify.webhooks[i].url: a template the worker expands, not the loader. */
function isWebhookUrl(path: ReadonlyArray<string | number>): boolean {
  return (
    path.length === 4 &&
    path[0] === 'notify' &&
    path[1] === 'webhooks' &&
    typeof path[2] === 'number' &&
    path[3] === 'url'
  );
}

export function parsePipelineText(text: string, file: string, opts: LoadOptions = {}): PipelineSpec {
  const env = opts.env ?? processSettings().env;
  const lineCounter = new LineCounter();
  // Its depth measured before the document is composed (recursively): the CST parser keeps its own stack, so it
  // measures depth safely.
  const parsed = parseDocumentWithin(text, MAX_NESTING, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
    merge: false,
  });
  const at = (offset: number | undefined) => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { line: pos.line, col: pos.col };
  };
  const issues: PipelineIssue[] = [];
  const add = (offset: number | undefined, path: string, message: string) => {
    const suggestion = suggestionOf(message);
    issues.push({ file, ...at(offset), path, message, ...(suggestion !== undefined ? { suggestion } : {}) });
  };

  if (typeof parsed === 'number') {
    add(
      parsed,
      '<yaml>',
      `nested deeper than ${MAX_NESTING} levels here; a pipeline file needs a few levels, not thousands`,
    );
    throw new PipelineFileError(file, issues);
  }
  const doc = parsed;
  if (doc.errors.length > 0) {
    for (const err of doc.errors) add(err.pos[0], '<yaml>', yamlMessage(err.message));
    throw new PipelineFileError(file, sortIssues(issues));
  }
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    add(0, '<root>', 'the file is empty; expected a pipeline mapping with name, kind and request');
    throw new PipelineFileError(file, issues);
  }

  const aliasProblem = aliasExpansionProblem(doc);
  if (aliasProblem !== undefined) {
    add(aliasProblem.offset, '<yaml>', aliasProblem.message);
    throw new PipelineFileError(file, issues);
  }

  // Paths already reported by the checks below; schema issues at or under them would only repeat the problem.
  const reported: string[] = [];
  const token = env[TOKEN_ENV];

  visit(doc, {
    Pair(_key, pair, ancestry) {
      const path = pathOf(ancestry, pair);
      const keyName = isScalar(pair.key) ? String(pair.key.value) : undefined;
      const inDataSchema = path.length >= 2 && path[0] === 'request' && path[1] === 'schema';
      // `budget.tokens` limits the service's tokenUsage (budget/): a count, not a credential.
      const budgetTokens = path.length === 2 && path[0] === 'budget' && keyName === 'tokens';
      if (keyName !== undefined && !inDataSchema && !budgetTokens && SECRET_KEY.test(keyName)) {
        add(
          nodeStart(pair.key as Node),
          formatPath(path),
          `secrets do not belong in a pipeline file; ${SECRET_ADVICE}`,
        );
        reported.push(formatPath(path));
        return visit.SKIP;
      }
      return undefined;
    },
    Scalar(key, node, ancestry) {
      if (key === 'key' || typeof node.value !== 'string') return undefined;
      const path = pathOf(ancestry, node);
      const where = formatPath(path);
      const original = node.value;
      const { value, missing, referenced } = interpolate(original, env);
      if (referenced.includes(TOKEN_ENV)) {
        add(
          nodeStart(node),
          where,
          `do not reference ${TOKEN_ENV} in a pipeline file: the worker reads it from its own environment`,
        );
        reported.push(where);
        return undefined;
      }
      // A webhook URL stays a `${VAR}` template: the worker expands it from its own environment when it sends
      // (activities/notify.ts), so the secret in a Slack webhook's path is never in the workflow's input or history.
      if (isWebhookUrl(path)) {
        if (token !== undefined && token.length >= 4 && original.includes(token)) {
          add(nodeStart(node), where, `this value contains the API token; ${SECRET_ADVICE}`);
          reported.push(where);
        }
        return undefined;
      }
      for (const name of missing) {
        add(
          nodeStart(node),
          where,
          `environment variable ${name} is not set (set it, or give a default: \${${name}:-value})`,
        );
        reported.push(where);
      }
      if (token !== undefined && token.length >= 4 && value.includes(token)) {
        // Never echo the value: it is the token.
        add(nodeStart(node), where, `this value contains the API token; ${SECRET_ADVICE}`);
        reported.push(where);
        return undefined;
      }
      if (value !== original) node.value = retype(value, node);
      return undefined;
    },
  });

  let js: unknown;
  try {
    js = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // The library's alias guard (a ReferenceError) should not fire after aliasExpansionProblem, but if it does it
    // is still a problem of the file: exit 2 with a place, not an unexplained crash.
    let firstAlias: number | undefined;
    visit(doc, { Alias: (_k, node) => ((firstAlias ??= nodeStart(node)), visit.BREAK) });
    add(firstAlias ?? 0, '<yaml>', `cannot expand the document: ${(err as Error).message}`);
    throw new PipelineFileError(file, issues);
  }
  // request.urls_file: its list becomes request.urls (errors in it are reported at its own file and line below).
  const fromFile = urlsFileInto(js, opts.urlsFile, (message) => {
    const found = locate(doc, ['request', 'urls_file']);
    add(nodeStart(found.pair?.key as Node | undefined) ?? nodeStart(found.node), 'request.urls_file', message);
    reported.push('request.urls_file');
  });
  const data: unknown = withDefaultDestination(js, env);
  const knownKeys = new Map<string, string[]>();
  // jitless: zod compiles a parser (new Function) for each object schema at its first parse, which pays only over
  // many parses; a command checks a pipeline file once, and code made by new Function is in no code cache (the
  // bundles' of scripts/cli-bundle.ts). The outcome is the same either way.
  const parseOpts = { jitless: true, error: (iss: z.core.$ZodRawIssue) => rawMessage(iss, knownKeys) };
  const result = pipelineSchemaFor(data).safeParse(data, parseOpts);
  let zodIssues: z.core.$ZodIssue[] = result.success ? [] : result.error.issues;
  if (zodIssues.some((i) => i.code === 'invalid_union' && i.path.length === 1 && i.path[0] === 'kind')) {
    // Unknown kind: the union could not pick a branch, so check the shared keys on their own too.
    const base = pipelineBaseSchema().safeParse(data, parseOpts);
    if (!base.success) zodIssues = [...zodIssues, ...base.error.issues];
  }

  for (const iss of zodIssues) {
    const path = iss.path.filter((p): p is string | number => typeof p !== 'symbol');
    if (iss.code === 'unrecognized_keys') {
      const known = knownKeys.get(formatPath(path)) ?? [];
      for (const k of iss.keys) {
        const keyPath = formatPath([...path, k]);
        if (isReported(reported, keyPath)) continue;
        const { pair } = locate(doc, [...path, k]);
        add(
          nodeStart(pair?.key as Node | undefined) ?? nodeStart(locate(doc, path).node),
          keyPath,
          unknownKeyMessage(k, known),
        );
      }
      continue;
    }
    const where = formatPath(path);
    if (isReported(reported, where)) continue;
    if (fromFile && path[0] === 'request' && path[1] === 'urls') {
      // A URL of the list file: its own file and line, not a place in the pipeline file.
      const i = typeof path[2] === 'number' ? path[2] : undefined;
      const line = i !== undefined ? fromFile.lines[i] : undefined;
      const found = locate(doc, ['request', 'urls_file']);
      add(
        nodeStart(found.pair?.key as Node | undefined) ?? nodeStart(found.node),
        'request.urls_file',
        `${fromFile.path}${line !== undefined ? `:${line}` : ''}: ${iss.message}`,
      );
      continue;
    }
    const found = locate(doc, path);
    const message =
      iss.code === 'invalid_union' && 'note' in iss ? discriminatorMessage(iss, valueAt(data, path)) : iss.message;
    // A missing value has no node: point at the key of its parent (or the start of the file's mapping).
    const offset = found.complete
      ? nodeStart(found.node)
      : (nodeStart(found.pair?.key as Node | undefined) ?? nodeStart(found.node));
    add(offset, where, message);
  }

  if (issues.length > 0 || !result.success) throw new PipelineFileError(file, sortIssues(dedupe(issues)));
  return result.data;
}

// ---------------------------------------------------------------------------------------------------------
// Resource limits

// ---------------------------------------------------------------------------------------------------------
// Messages

function yamlMessage(message: string): string {
  if (message.includes('multiple documents'))
    return 'a pipeline file holds one pipeline (one YAML document); found several';
  return `YAML syntax error: ${message.replace(/\s+/g, ' ').trim()}`;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `string '${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
  if (typeof value === 'number') return Number.isInteger(value) ? `integer ${value}` : `number ${value}`;
  return `${typeof value} ${String(value)}`;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  bigint: 'an integer',
};

function quoteAll(values: ReadonlyArray<unknown>): string {
  return values.map((v) => `'${String(v)}'`).join(', ');
}

function rawMessage(iss: z.core.$ZodRawIssue, knownKeys: Map<string, string[]>): string | undefined {
  switch (iss.code) {
    case 'invalid_type': {
      const format = (iss.inst as { _zod?: { def?: { format?: string } } } | undefined)?._zod?.def?.format;
      const expected = format === 'safeint' ? EXPECTED['int'] : (EXPECTED[iss.expected] ?? iss.expected);
      return iss.input === undefined ? `required (${expected})` : `expected ${expected}, got ${describe(iss.input)}`;
    }
    case 'invalid_value':
      return iss.values.length === 1
        ? `expected '${String(iss.values[0])}', got ${describe(iss.input)}`
        : `expected one of ${quoteAll(iss.values)}, got ${describe(iss.input)}${nearestHint(iss.input, iss.values)}`;
    case 'unrecognized_keys': {
      const shape = (iss.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def
        ?.shape;
      const path = (iss.path ?? []).filter((p): p is string | number => typeof p !== 'symbol');
      if (shape) knownKeys.set(formatPath(path), Object.keys(shape));
      return `unknown key`;
    }
    case 'too_small': {
      const min = String(iss.minimum);
      if (iss.origin === 'array') return `needs at least ${min} item${min === '1' ? '' : 's'}`;
      if (iss.origin === 'string') return min === '1' ? 'must not be empty' : `must be at least ${min} characters`;
      if (iss.origin === 'number' || iss.origin === 'int') {
        return iss.inclusive === false
          ? `must be greater than ${min}, got ${describe(iss.input)}`
          : `must be at least ${min}, got ${describe(iss.input)}`;
      }
      return undefined;
    }
    case 'too_big': {
      const max = String(iss.maximum);
      if (iss.origin === 'array') return `must have at most ${max} items`;
      if (iss.origin === 'string') return `must be at most ${max} characters`;
      if (iss.origin === 'number' || iss.origin === 'int') return `must be at most ${max}, got ${describe(iss.input)}`;
      return undefined;
    }
    default:
      return undefined;
  }
}

function discriminatorMessage(iss: z.core.$ZodIssue, value: unknown): string {
  const options = (iss as { options?: unknown[] }).options ?? [];
  return value === undefined
    ? `required: one of ${quoteAll(options)}`
    : `expected one of ${quoteAll(options)}, got ${describe(value)}${nearestHint(value, options)}`;
}

/** "; did you mean 'x'?" for a mistyped enum value close to an allowed one (same closeness rule as unknown keys). */
function nearestHint(input: unknown, allowed: readonly unknown[]): string {
  const options = allowed.filter((v): v is string => typeof v === 'string');
  if (typeof input !== 'string' || options.length === 0) return '';
  const nearest = closest(input, options);
  return distance(input, nearest) <= Math.max(2, Math.floor(nearest.length / 3)) ? `; did you mean '${nearest}'?` : '';
}

function unknownKeyMessage(key: string, known: string[]): string {
  if (known.length === 0) return 'unknown key';
  const nearest = closest(key, known);
  // A far-off "suggestion" only misleads; list what is allowed instead.
  if (distance(key, nearest) <= Math.max(2, Math.floor(nearest.length / 3)))
    return `unknown key; did you mean '${nearest}'?`;
  return `unknown key; allowed keys: ${known.join(', ')}`;
}

// ---------------------------------------------------------------------------------------------------------
// YAML nodes and positions

function nodeStart(node: Node | null | undefined): number | undefined {
  return node?.range?.[0];
}

/** The key path of a node from the ancestry `visit` passes (Document, then Map/Seq/Pair nodes). */
function pathOf(ancestry: ReadonlyArray<unknown>, self: unknown): Path {
  const path: Path = [];
  const chain = [...ancestry, self];
  for (let i = 0; i < chain.length; i++) {
    const n = chain[i];
    const next = chain[i + 1];
    if (isPair(n) && isScalar(n.key)) path.push(n.key.value as string);
    else if (isSeq(n) && next !== undefined) path.push(n.items.indexOf(next as never));
  }
  return path;
}

function locate(doc: Document, path: Path): { node: Node | null; pair?: Pair; complete: boolean } {
  let node = doc.contents as Node | null;
  let pair: Pair | undefined;
  for (const seg of path) {
    if (isMap(node)) {
      const p = node.items.find((it) => isScalar(it.key) && it.key.value === seg);
      if (!p) return { node, ...(pair ? { pair } : {}), complete: false };
      pair = p as Pair;
      node = (p.value as Node | null) ?? null;
      if (node === null) return { node: p.key as Node, pair, complete: false };
    } else if (isSeq(node) && typeof seg === 'number' && node.items[seg] !== undefined) {
      node = node.items[seg] as Node;
    } else {
      return { node, ...(pair ? { pair } : {}), complete: false };
    }
  }
  return { node, ...(pair ? { pair } : {}), complete: true };
}

/** The default database follows the loader's environment (DATABASE_URL), which the schema alone cannot see. */
/**
 * Replaces `request.urls_file` by the list read from it (`request.urls`), in place. Returns the list when it did,
 * so schema errors of its URLs can name the list file's lines.
 */
function urlsFileInto(
  js: unknown,
  list: UrlsFileList | undefined,
  problem: (message: string) => void,
): UrlsFileList | undefined {
  const request = (js as { request?: unknown } | null)?.request;
  if (request === null || typeof request !== 'object' || Array.isArray(request) || !('urls_file' in request))
    return undefined;
  const r = request as Record<string, unknown>;
  if ('urls' in r) {
    problem('give the URLs either in request.urls or in the file request.urls_file names, not both');
    return undefined;
  }
  // The same definition the JSON Schema is given (./urls-file.ts).
  const named = urlsFileField.safeParse(r[URLS_FILE_KEY]);
  if (!named.success) {
    problem('expected the path of a file with one URL a line (relative to the pipeline file)');
    return undefined;
  }
  if (list === undefined) {
    problem('a list file is read only when the pipeline is loaded from its file (scrape-etl validate/run)');
    return undefined;
  }
  if (list.urls.length === 0) {
    problem(`${list.path} holds no URL (one URL a line; blank lines and # comments are skipped)`);
    return undefined;
  }
  delete r['urls_file'];
  r['urls'] = list.urls;
  return list;
}

function withDefaultDestination(data: unknown, env: Env): unknown {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  const d = data as Record<string, unknown>;
  const dest = d['destination'];
  if (dest === undefined || dest === null) return { ...d, destination: { database: defaultDatabaseUrl(env) } };
  if (typeof dest === 'object' && !Array.isArray(dest) && !('database' in dest)) {
    return { ...d, destination: { ...dest, database: defaultDatabaseUrl(env) } };
  }
  return data;
}

function valueAt(data: unknown, path: Path): unknown {
  let cur = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

/**
 * A plain scalar that was only a `${VAR}` reference gets the type YAML would give the substituted text
 * (`concurrency: ${CONCURRENCY:-4}` is the number 4); quoted scalars stay strings.
 */
function retype(value: string, node: Scalar): unknown {
  if (node.type !== Scalar.PLAIN) return value;
  try {
    const parsed: unknown = parseYaml(value);
    if (typeof parsed === 'number' || typeof parsed === 'boolean') return parsed;
  } catch {
    // not a YAML scalar: keep the text
  }
  return value;
}

function isReported(reported: string[], path: string): boolean {
  return reported.some((r) => path === r || path.startsWith(`${r}.`) || path.startsWith(`${r}[`));
}

function sortIssues(issues: PipelineIssue[]): PipelineIssue[] {
  return [...issues].sort((a, b) => a.line - b.line || a.col - b.col);
}

function dedupe(issues: PipelineIssue[]): PipelineIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.line}:${i.col}:${i.path}:${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
