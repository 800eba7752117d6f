// The shape of scrape-etl.yaml (cli/project.ts) and its reading: every problem at once, each at its line and
// column with the fix, in the same form as a pipeline file's (pipelines/errors.ts). A file with nothing wrong is
// read without this module (cli/project-quick.ts); this one words the problems.
import { closest, distance } from 'fastest-levenshtein';
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from '../vendor/yaml.js';
import type { Document, Node } from '../vendor/yaml.js';
import { z } from 'zod';
import { isDatabaseUrl, urlFormsText } from '../destinations/url-forms.js';
import { interpolate } from '../pipelines/env.js';
import { formatPath, PipelineFileError, type PipelineIssue } from '../pipelines/errors.js';
import { aliasExpansionProblem, MAX_NESTING, nestingBeyond } from '../pipelines/yaml-limits.js';
import type { Project } from './project.js';
import { projectOf } from './project-quick.js';
import { globLeavesRoot } from '../lib/project-root.js';
import { budgetSchema } from '../budget/schema.js';
import path from 'node:path';

const duration = z.string().regex(/^[0-9]+(ms|s|m|h|d)$/, "expected a duration like '500ms', '30s', '10m'");
const positive = z.number().int().positive('expected a positive whole number');
const port = z.number().int().min(0, 'expected a port number 0-65535').max(65535, 'expected a port number 0-65535');
const address = z
  .string()
  .regex(
    /^([^\s:/]+|\[[0-9a-fA-F:]+\]):\d{1,5}$/,
    'expected host:port, e.g. 127.0.0.1:7233 (leave it out for the embedded dev server)',
  );
const database = z.string().refine((s) => isDatabaseUrl(s), `expected a database URL: ${urlFormsText()}`);

export const projectSchema = z.strictObject({
  pipelines: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  destination: database.optional(),
  data_dir: z.string().min(1).optional(),
  exports_root: z.string().min(1).optional(),
  temporal: z
    .strictObject({
      address: address.optional(),
      namespace: z.string().min(1).optional(),
      task_queue: z.string().min(1).optional(),
      web_ui_url: z.url().optional(),
    })
    .optional(),
  worker: z
    .strictObject({
      shutdown_grace: z
        .string()
        .regex(/^[0-9]+(ms|s|m|h)$/, "expected a duration like '30s'")
        .optional(),
      log_level: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']).optional(),
      metrics_port: port.optional(),
      metrics_host: z.string().min(1).optional(),
      heartbeat_timeout: duration.optional(),
      wait_heartbeat_timeout: duration.optional(),
      activity_timeout: duration.optional(),
      url_chunk_size: positive.optional(),
      url_load_group: positive.optional(),
      pages_per_activity: positive.optional(),
      activities_per_run: positive.optional(),
      load_batch_size: positive.optional(),
      export_threads: positive.optional(),
      pg_pool_size: positive.optional(),
    })
    .optional(),
  budget: budgetSchema.optional(),
});

export type ProjectFile = z.infer<typeof projectSchema>;

/** Keys allowed at each level, for "did you mean" on an unknown one. */
function allowedKeys(at: string): string[] {
  if (at === '<root>') return Object.keys(projectSchema.shape);
  const inner = projectSchema.shape[at as 'temporal' | 'worker' | 'budget']?.unwrap();
  return inner ? Object.keys(inner.shape) : [];
}

function nodeAt(doc: Document, keys: Array<string | number>, key?: string): Node | undefined {
  let node = doc.contents as Node | null;
  for (const seg of keys) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === seg);
      if (!pair) return node;
      node = (pair.value as Node | null) ?? (pair.key as Node);
    } else if (isSeq(node) && typeof seg === 'number') node = (node.items[seg] as Node | undefined) ?? node;
    else return node ?? undefined;
  }
  if (key !== undefined && isMap(node)) {
    const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
    if (pair) return pair.key as Node;
  }
  return node ?? undefined;
}

export function parseProjectText(text: string, file: string, env: NodeJS.ProcessEnv): Project {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, merge: false });
  const issues: PipelineIssue[] = [];
  const add = (offset: number | undefined, where: string, message: string) => {
    const pos = lineCounter.linePos(offset ?? 0);
    issues.push({ file, line: pos.line, col: pos.col, path: where, message });
  };
  if (doc.errors.length > 0) {
    for (const err of doc.errors)
      add(err.pos[0], '<yaml>', `YAML syntax error: ${err.message.replace(/\s+/g, ' ').trim()}`);
    throw new PipelineFileError(file, issues);
  }
  // The limits and words of pipeline files (pipelines/yaml-limits.ts): a "billion laughs" or a file nested thousands
  // deep is a problem at its place, not a crash of the library.
  const deep = nestingBeyond(text, MAX_NESTING);
  if (deep !== undefined)
    add(deep, '<yaml>', `nested deeper than ${MAX_NESTING} levels here; a project file needs two levels`);
  const aliases = deep === undefined ? aliasExpansionProblem(doc, 'a project file') : undefined;
  if (aliases !== undefined) add(aliases.offset, '<yaml>', `${aliases.message}; write the settings out`);
  if (issues.length > 0) throw new PipelineFileError(file, issues);
  // An empty file is a project with every default: a marker of the project's root, as an empty dagster.yaml is.
  let data: unknown;
  try {
    data = doc.contents === null ? {} : doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    add(0, '<yaml>', `cannot expand the document: ${(err as Error).message}`);
    throw new PipelineFileError(file, issues);
  }
  if (data === null) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    add(
      0,
      '<root>',
      `expected a mapping of settings (pipelines, destination, data_dir, temporal, worker); see README, "The project file"`,
    );
    throw new PipelineFileError(file, issues);
  }
  // ${VAR} and ${VAR:-default} in string values, as in pipeline files (a Postgres password stays out of the file).
  const expand = (value: unknown, at: Array<string | number>): unknown => {
    if (typeof value === 'string') {
      const r = interpolate(value, env);
      for (const name of r.missing)
        add(
          nodeAt(doc, at)?.range?.[0],
          formatPath(at),
          `\${${name}} is not set; export ${name}, or give a default: \${${name}:-value}`,
        );
      return r.value;
    }
    if (Array.isArray(value)) return value.map((v, i) => expand(v, [...at, i]));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, [...at, k])]));
    return value;
  };
  const expanded = expand(data, []);
  const parsed = projectSchema.safeParse(expanded);
  if (!parsed.success) {
    for (const iss of parsed.error.issues) {
      const at = iss.path.filter((p): p is string | number => typeof p !== 'symbol');
      if (iss.code === 'unrecognized_keys') {
        const known = allowedKeys(formatPath(at));
        for (const key of iss.keys) {
          const near = known.length > 0 ? closest(key, known) : undefined;
          const hint =
            near !== undefined && distance(key, near) <= Math.max(2, Math.floor(key.length / 3))
              ? `; did you mean '${near}'?`
              : '';
          add(
            nodeAt(doc, at, key)?.range?.[0],
            formatPath([...at, key]),
            `unknown setting${hint} (allowed here: ${known.join(', ')})`,
          );
        }
        continue;
      }
      add(nodeAt(doc, at)?.range?.[0], formatPath(at), iss.message);
    }
  }
  // Globs stay inside the project: checked here, not in the schema, as the message names the project's folder.
  const globs = parsed.success ? parsed.data.pipelines : undefined;
  const listed: Array<{ glob: string; at: Array<string | number> }> =
    typeof globs === 'string'
      ? [{ glob: globs, at: ['pipelines'] }]
      : (globs ?? []).map((glob, i) => ({ glob, at: ['pipelines', i] }));
  for (const { glob, at } of listed) {
    if (globLeavesRoot(glob))
      add(nodeAt(doc, at)?.range?.[0], formatPath(at), leavingGlobMessage(glob, path.dirname(file)));
  }
  if (issues.length > 0)
    throw new PipelineFileError(
      file,
      [...issues].sort((a, b) => a.line - b.line || a.col - b.col),
    );
  return projectOf((parsed.data ?? {}) as ProjectFile, file);
}

/** A glob of `pipelines:` that could match outside the project: what to write instead. */
export function leavingGlobMessage(glob: string, root: string): string {
  return `'${glob}' leaves the project (${root}): write it relative to the project's folder, without '..' or a leading '/' (e.g. pipelines/**/*.yaml); a pipeline file elsewhere is given by its path on the command line`;
}
