// A pipeline named on the command line, by file or by name. A name is the `name:` of a pipeline file matched by the
// project's globs (scrape-etl.yaml, `pipelines:`); two files with the same name are an error listing both. The
// destination is read from the pipeline, so the commands that read a database need no --database.
// Light: the full loader (zod) is loaded only by the commands that need the whole pipeline (resolvePipelineFile's
// callers load it themselves); a name is found by reading the files' YAML only.
import { EXIT } from '../lib/exit-codes.js';
import fs from 'node:fs';
import path from 'node:path';
import { readInputTextSync } from '../lib/input-file.js';
import { anchorDatabaseUrl } from '../lib/project-root.js';
import { interpolate } from '../pipelines/env.js';
import { currentProject, PROJECT_FILE, type Project } from './project.js';
import { defaultDatabaseUrl, processSettings } from '../settings/process.js';
import type { Env } from '../settings/settings.js';

export interface PipelineRef {
  /** The pipeline's name (its `name:`, or the argument itself when it names no file of the project). */
  name: string;
  /** The pipeline file, when there is one. */
  file: string | undefined;
  /** Where its runs are: the file's destination, else DATABASE_URL (the project's destination), else the default. */
  database: string;
  /** Why no file was found for a name, said beside the answer (a name the project's files do not hold). */
  note?: string;
}

function usage(message: string): Error {
  return Object.assign(new Error(message), { exitCode: EXIT.usage });
}

/** Whether an argument names a file rather than a pipeline: a path, a pipeline file extension, or an existing file. */
export function looksLikeFile(arg: string): boolean {
  return /\.(ya?ml|json)$/i.test(arg) || arg.includes('/') || arg.includes(path.sep) || isFile(arg);
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

interface Found {
  file: string;
  name: string | undefined;
  database: string | undefined;
}

/** The files the project's globs match, with their `name:` and `destination.database` (as written). */
export async function projectPipelines(project: Project): Promise<Found[]> {
  return readPipelineHeads(await projectPipelineFiles(project));
}

/** The files the project's globs match (absolute, sorted), not read. */
export async function projectPipelineFiles(project: Project): Promise<string[]> {
  const { glob } = await import('../vendor/tinyglobby.js');
  const files = await glob(project.pipelines, {
    cwd: project.root,
    absolute: true,
    ignore: ['**/node_modules/**', PROJECT_FILE],
  });
  return files.sort();
}

/** The `name:` and `destination.database` of pipeline files, read as YAML only (no schema check). */
export async function readPipelineHeads(files: string[]): Promise<Found[]> {
  const { parse } = await import('../vendor/yaml.js');
  const out: Found[] = [];
  for (const file of files) {
    let doc: unknown;
    try {
      doc = parse(readInputTextSync(file, 'pipeline'));
    } catch {
      // A file that does not parse, or is no regular file within the limit, is no pipeline to find by name; `validate` reports it.
      out.push({ file, name: undefined, database: undefined });
      continue;
    }
    const d = doc !== null && typeof doc === 'object' ? (doc as Record<string, unknown>) : {};
    const dest = d['destination'];
    const database =
      dest !== null && typeof dest === 'object' ? (dest as Record<string, unknown>)['database'] : undefined;
    out.push({
      file,
      name: typeof d['name'] === 'string' ? d['name'] : undefined,
      database: typeof database === 'string' ? database : undefined,
    });
  }
  return out;
}

/** The project's file of the pipeline named `name`, or undefined; an error when several files hold that name. */
export async function fileOfPipelineName(project: Project, name: string): Promise<string | undefined> {
  return (await pipelineOfName(project, name))?.file;
}

/** The project's pipeline named `name` (its file, name and written destination), or undefined; ambiguous: an error. */
async function pipelineOfName(project: Project, name: string): Promise<Found | undefined> {
  const matches = (await projectPipelines(project)).filter((f) => f.name === name);
  if (matches.length > 1) {
    const rel = (f: string) => path.relative(process.cwd(), f) || f;
    throw usage(
      `pipeline name '${name}' is ambiguous: ${matches.length} files of the project hold it:\n  ${matches.map((m) => rel(m.file)).join('\n  ')}\nname the file instead, or rename one of them`,
    );
  }
  return matches[0];
}

/** What to say when no pipeline file has the name: what was searched and how to fix it. */
async function notFoundMessage(name: string, project: Project | undefined): Promise<string> {
  if (!project) {
    return `no pipeline file '${name}', and no project file (${PROJECT_FILE}) here or above to look the name up in; give the file's path, or create a project with \`scrape-etl init\``;
  }
  const names = (await projectPipelines(project)).map((f) => f.name).filter((n): n is string => n !== undefined);
  const { closest, distance } = await import('fastest-levenshtein');
  const nearest = names.length > 0 ? closest(name, names) : undefined;
  const near =
    nearest !== undefined && distance(name, nearest) <= Math.max(2, Math.floor(name.length / 3)) ? nearest : undefined;
  return (
    `no pipeline named '${name}' among the files ${project.pipelines.join(', ')} of ${project.file}` +
    (names.length > 0
      ? ` (pipelines: ${[...new Set(names)].sort().join(', ')}${near ? `; did you mean '${near}'?` : ''})`
      : ' (none found)')
  );
}

/**
 * The pipeline file an argument names: the argument itself when it is a file, else the project's file whose
 * `name:` it is. For the commands that need the whole pipeline (run, validate, prune, rebuild, schedule apply).
 */
export async function resolvePipelineFile(arg: string): Promise<string> {
  if (looksLikeFile(arg)) return arg;
  const project = await currentProject();
  const file = project ? await fileOfPipelineName(project, arg) : undefined;
  if (file === undefined) throw usage(await notFoundMessage(arg, project));
  return path.relative(process.cwd(), file) || file;
}

/** The same for several arguments; no argument at all means every pipeline of the project. */
export async function resolvePipelineFiles(args: string[]): Promise<string[]> {
  if (args.length > 0) return Promise.all(args.map(resolvePipelineFile));
  const project = await currentProject();
  if (!project) throw usage(`name the pipeline files (or run in a project: no ${PROJECT_FILE} here or above)`);
  const files = (await projectPipelineFiles(project)).map((f) => path.relative(process.cwd(), f) || f);
  if (files.length === 0)
    throw usage(
      `no pipeline files match ${project.pipelines.join(', ')} in ${project.root} (the 'pipelines:' of ${project.file})`,
    );
  return files;
}

/**
 * Name and destination of a pipeline, for the commands that only read its database (status, history, schema show,
 * export). A file is read for both; a name is looked up in the project; a name the project does not hold is taken
 * as it is, with the default database (a pipeline loaded with `scrape-etl load --pipeline`, a file elsewhere).
 */
export async function resolvePipelineRef(arg: string, env: Env = processSettings().env): Promise<PipelineRef> {
  if (looksLikeFile(arg)) {
    if (!fs.existsSync(arg)) throw usage(`no pipeline file ${arg} (file not found)`);
    const [found] = await readPipelineHeads([path.resolve(arg)]);
    if (found?.name === undefined)
      throw usage(
        `${arg}: not a pipeline file (no top-level 'name:'); \`scrape-etl validate ${arg}\` says what is wrong`,
      );
    const { projectRootAbove } = await import('../lib/project-root.js');
    return {
      name: found.name,
      file: arg,
      database: destinationOf(found, projectRootAbove(path.dirname(path.resolve(arg))), arg, env),
    };
  }
  const project = await currentProject();
  if (project) {
    const found = await pipelineOfName(project, arg);
    if (found !== undefined) {
      const file = found.file;
      // The root the loader takes the file's relative paths from: the project above the file (pipelines/loader.ts).
      const { projectRootAbove } = await import('../lib/project-root.js');
      return { name: arg, file, database: destinationOf(found, projectRootAbove(path.dirname(file)), file, env) };
    }
  }
  return {
    name: arg,
    file: undefined,
    database: defaultDatabaseUrl(env),
    ...(project ? { note: await notFoundMessage(arg, project) } : {}),
  };
}

/** DATABASE_URL when set (or the project's destination), else the built-in default; as the loader does. */
export { defaultDatabaseUrl };

/** A pipeline's database as the loader makes it: ${VAR}s expanded, a relative file the project root's. */
function destinationOf(found: Found, root: string | undefined, file: string, env: Env): string {
  if (found.database === undefined) return defaultDatabaseUrl(env);
  const written = interpolate(found.database, env);
  if (written.missing.length > 0) {
    throw usage(
      `${path.relative(process.cwd(), file) || file}: destination.database needs ${written.missing.map((n) => `\${${n}}`).join(', ')}, which is not set; export it`,
    );
  }
  return root === undefined ? written.value : anchorDatabaseUrl(written.value, root);
}

/** A pipeline's name (a schedule's id): the argument itself, or the `name:` of the file it names. */
export async function pipelineNameOf(arg: string): Promise<string> {
  return looksLikeFile(arg) && fs.existsSync(arg) ? (await resolvePipelineRef(arg)).name : arg;
}
