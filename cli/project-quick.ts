// The project file read without zod, for the common case of a file with nothing wrong: every command reads it, and
// zod's ~95 ESM modules cost more than a `status` query (bench/startup.ts). The check here accepts only what the
// schema of cli/project-schema.ts accepts; anything it is not sure of (a problem, a ${VAR} not set, a setting it
// does not check itself such as temporal.web_ui_url) goes to that schema, which words every problem with its line
// and column. test/fast/cli/project-quick.test.ts holds the two to the same verdict.
import path from 'node:path';
import { parseDocument } from '../vendor/yaml.js';
import { anchorDatabaseUrl, globLeavesRoot } from '../lib/project-root.js';
import { interpolate } from '../pipelines/env.js';
import { aliasExpansionProblem } from '../pipelines/yaml-limits.js';
import { isDatabaseUrl } from '../destinations/url-forms.js';
import { DEFAULT_PIPELINE_GLOBS, PROJECT_SETTINGS, type Project } from './project.js';
import type { ProjectFile } from './project-schema.js';
import { SETTINGS, sqliteUrlIn } from '../settings/definition.js';

// The same patterns as the schema's.
const DURATION = /^[0-9]+(ms|s|m|h|d)$/;
const GRACE = /^[0-9]+(ms|s|m|h)$/;
const ADDRESS = /^([^\s:/]+|\[[0-9a-fA-F:]+\]):\d{1,5}$/;
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
const POSITIVE_KEYS = [
  'url_chunk_size',
  'url_load_group',
  'pages_per_activity',
  'activities_per_run',
  'load_batch_size',
  'export_threads',
  'pg_pool_size',
];

type Check = (v: unknown) => boolean;
const text: Check = (v) => typeof v === 'string' && v.length > 0;
const matches =
  (re: RegExp): Check =>
  (v) =>
    typeof v === 'string' && re.test(v);
/** A glob that stays inside the project (the schema's reading says why another does not). */
const inside: Check = (v) => typeof v === 'string' && v.length > 0 && !globLeavesRoot(v);
const integer =
  (min: number, max = Infinity): Check =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

const TEMPORAL: Record<string, Check> = { address: matches(ADDRESS), namespace: text, task_queue: text };
const WORKER: Record<string, Check> = {
  shutdown_grace: matches(GRACE),
  log_level: (v) => typeof v === 'string' && LOG_LEVELS.includes(v),
  metrics_port: integer(0, 65535),
  metrics_host: text,
  heartbeat_timeout: matches(DURATION),
  wait_heartbeat_timeout: matches(DURATION),
  activity_timeout: matches(DURATION),
  ...Object.fromEntries(POSITIVE_KEYS.map((k) => [k, integer(1)])),
};

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Every key known and its value valid (a key present with no value is not: the schema says so). */
function section(v: unknown, checks: Record<string, Check>): boolean {
  return isMapping(v) && Object.entries(v).every(([k, x]) => Object.hasOwn(checks, k) && checks[k]!(x));
}

/** The file's top level: every key known and its value valid, as section() judges each of them. */
const TOP: Record<string, Check> = {
  pipelines: (v) => inside(v) || (Array.isArray(v) && v.length > 0 && v.every(inside)),
  exports_root: text,
  destination: (v) => typeof v === 'string' && isDatabaseUrl(v),
  data_dir: text,
  temporal: (v) => section(v, TEMPORAL),
  worker: (v) => section(v, WORKER),
  // A budget is read by the pipeline loader (pipelines/project-budget.ts); the schema words its problems.
  budget: () => false,
};

/** The project of a file with nothing wrong; undefined when the schema must look (cli/project.ts then asks it). */
export function readProjectQuickly(source: string, file: string, env: NodeJS.ProcessEnv): Project | undefined {
  const doc = parseDocument(source, { prettyErrors: false, uniqueKeys: true, merge: false });
  if (doc.errors.length > 0) return undefined;
  // Aliases of aliases ("billion laughs"): the schema's reading says where, with pipeline files' limit.
  if (aliasExpansionProblem(doc) !== undefined) return undefined;
  let data: unknown;
  try {
    data = doc.contents === null ? {} : (doc.toJS() ?? {});
  } catch {
    return undefined;
  }
  if (!isMapping(data)) return undefined;
  let unset = false;
  const expand = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const r = interpolate(value, env);
      if (r.missing.length > 0) unset = true;
      return r.value;
    }
    if (Array.isArray(value)) return value.map(expand);
    if (isMapping(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v)]));
    return value;
  };
  const expanded = expand(data) as Record<string, unknown>;
  if (unset || !section(expanded, TOP)) return undefined;
  return projectOf(expanded as ProjectFile, file);
}

/** What a checked project file sets: the settings of its keys (by environment variable), paths anchored at its folder. */
export function projectOf(p: ProjectFile, file: string): Project {
  const root = path.dirname(file);
  const settings: Record<string, string> = {};
  for (const d of PROJECT_SETTINGS) {
    const v = d.project
      .split('.')
      .reduce<unknown>(
        (at, k) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[k] : undefined),
        p,
      );
    if (v === undefined) continue;
    const text = String(v);
    settings[d.env] =
      d.path === 'database'
        ? anchorDatabaseUrl(text.trim(), root)
        : d.path === 'file'
          ? path.resolve(root, text)
          : text;
  }
  // The data folder defaults to <root>/data, not ./data of whichever subfolder a command runs in.
  const dataDir = (settings[SETTINGS.dataDir.env] ??= path.join(root, 'data'));
  // Likewise the default destination: the SQLite file in the project's data folder.
  settings[SETTINGS.databaseUrl.env] ??= sqliteUrlIn(dataDir);
  const globs =
    p.pipelines === undefined ? DEFAULT_PIPELINE_GLOBS : typeof p.pipelines === 'string' ? [p.pipelines] : p.pipelines;
  return { file, root, pipelines: globs, settings };
}
