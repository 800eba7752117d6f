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

// The same patterns as the schema's.
const DURATION = /^[0-9]+(ms|s|m|h|d)$/;
const GRACE = /^[0-9]+(ms|s|m|h)$/;
const ADDRESS = /^([^\s:/]+|\[[0-9a-fA-F:]+\]):\d{1,5}$/;
const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
const POSITIVE_KEYS = ['url_chunk_size', 'url_load_group', 'pages_per_activity', 'activities_per_run', 'load_batch_size', 'export_threads', 'pg_pool_size'];

type Check = (v: unknown) => boolean;
const text: Check = (v) => typeof v === 'string' && v.length > 0;
const matches = (re: RegExp): Check => (v) => typeof v === 'string' && re.test(v);
/** A glob that stays inside the project (the schema's reading says why another does not). */
const inside: Check = (v) => typeof v === 'string' && v.length > 0 && !globLeavesRoot(v);
const integer = (min: number, max = Infinity): Check => (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

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

/** What a checked project file sets: the environment variables of its keys, paths anchored at its folder. */
export function projectOf(p: ProjectFile, file: string): Project {
  const root = path.dirname(file);
  const values: Record<keyof typeof PROJECT_SETTINGS, string | number | undefined> = {
    destination: p.destination === undefined ? undefined : anchorDatabaseUrl(p.destination.trim(), root),
    data_dir: p.data_dir === undefined ? undefined : path.resolve(root, p.data_dir),
    exports_root: p.exports_root === undefined ? undefined : path.resolve(root, p.exports_root),
    'temporal.address': p.temporal?.address,
    'temporal.namespace': p.temporal?.namespace,
    'temporal.task_queue': p.temporal?.task_queue,
    'temporal.web_ui_url': p.temporal?.web_ui_url,
    'worker.shutdown_grace': p.worker?.shutdown_grace,
    'worker.log_level': p.worker?.log_level,
    'worker.metrics_port': p.worker?.metrics_port,
    'worker.metrics_host': p.worker?.metrics_host,
    'worker.heartbeat_timeout': p.worker?.heartbeat_timeout,
    'worker.wait_heartbeat_timeout': p.worker?.wait_heartbeat_timeout,
    'worker.activity_timeout': p.worker?.activity_timeout,
    'worker.url_chunk_size': p.worker?.url_chunk_size,
    'worker.url_load_group': p.worker?.url_load_group,
    'worker.pages_per_activity': p.worker?.pages_per_activity,
    'worker.activities_per_run': p.worker?.activities_per_run,
    'worker.load_batch_size': p.worker?.load_batch_size,
    'worker.export_threads': p.worker?.export_threads,
    'worker.pg_pool_size': p.worker?.pg_pool_size,
  };
  const settings: Record<string, string> = {};
  for (const [key, name] of Object.entries(PROJECT_SETTINGS)) {
    const v = values[key as keyof typeof PROJECT_SETTINGS];
    if (v !== undefined) settings[name] = String(v);
  }
  // The data folder defaults to <root>/data, not ./data of whichever subfolder a command runs in.
  settings['SCRAPE_ETL_DATA_DIR'] ??= path.join(root, 'data');
  // Likewise the default destination: the SQLite file in the project's data folder.
  settings['DATABASE_URL'] ??= `sqlite:${path.join(settings['SCRAPE_ETL_DATA_DIR'], 'scrape-etl.sqlite')}`;
  const globs = p.pipelines === undefined ? DEFAULT_PIPELINE_GLOBS : typeof p.pipelines === 'string' ? [p.pipelines] : p.pipelines;
  return { file, root, pipelines: globs, settings };
}
