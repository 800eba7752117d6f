// The project file, `scrape-etl.yaml` at the root of a project (found upwards from the current folder, as dbt
// finds dbt_project.yml): where the pipelines live, the default destination, the data folder, Temporal's address,
// namespace and task queue, and worker defaults. Its keys are settings of settings/definition.ts (each means what
// its environment variable means); the entry point builds the process's settings with them as the project layer,
// so that precedence is one rule everywhere: command flag > environment variable > project file > built-in default.
// Light at the top (node:fs, node:path): every command looks for the file; yaml and zod load only when one exists.
import { EXIT } from '../lib/exit-codes.js';
import fs from 'node:fs';
import path from 'node:path';
import { InputFileError, readInputTextSync } from '../lib/input-file.js';
import { noteDataDirOrigin } from '../lib/owned-path.js';
import { PROJECT_FILE } from '../lib/project-root.js';
import { SETTINGS, type SettingDefinition } from '../settings/definition.js';
import { enterSettings, processSettings, settingsFor } from '../settings/process.js';
import type { Env } from '../settings/settings.js';

export { PROJECT_FILE };
/** Names the project file (or its folder) explicitly; `none` ignores any project file. */
export const PROJECT_ENV = SETTINGS.project.env;
/** Where pipelines are looked for when the project file does not say. */
export const DEFAULT_PIPELINE_GLOBS = ['pipelines/**/*.yaml', 'pipelines/**/*.yml', 'pipelines/**/*.json'];

export interface Project {
  /** Absolute path of scrape-etl.yaml. */
  file: string;
  /** Its folder: relative paths in the file, and the pipeline globs, are taken from here. */
  root: string;
  /** Globs of pipeline files, relative to root. */
  pipelines: string[];
  /** What the file sets, by the settings' environment variables (before any environment variable overrides them). */
  settings: Record<string, string>;
}

function usage(message: string): Error {
  return Object.assign(new Error(message), { exitCode: EXIT.usage });
}

/** The project file that applies in `cwd`: SCRAPE_ETL_PROJECT, else the nearest scrape-etl.yaml upwards; else none. */
export function findProjectFile(cwd: string = process.cwd(), env?: Env): string | undefined {
  const named = settingsFor(env).project;
  if (named === 'none') return undefined;
  if (named) {
    const full = path.resolve(cwd, named);
    const file = fs.existsSync(full) && fs.statSync(full).isDirectory() ? path.join(full, PROJECT_FILE) : full;
    if (!fs.existsSync(file))
      throw usage(
        `${PROJECT_ENV}=${named}: no project file at ${file} (fix the path, or unset ${PROJECT_ENV} to look upwards from the current folder)`,
      );
    return file;
  }
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const file = path.join(dir, PROJECT_FILE);
    if (fs.existsSync(file)) return file;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The settings a project file may set, by key (`worker.heartbeat_timeout`): each means exactly what its environment
 * variable means (README, "Configuration"), as settings/definition.ts declares.
 */
export const PROJECT_SETTINGS: ReadonlyArray<SettingDefinition<unknown> & { project: string }> = Object.values(
  SETTINGS as Record<string, SettingDefinition<unknown>>,
).filter((d): d is SettingDefinition<unknown> & { project: string } => d.project !== undefined);

/** Reads and checks a project file; every problem at once as `file:line:col: path: message` (exit 2). */
export async function loadProject(file: string, env: Env = processSettings().env): Promise<Project> {
  let text: string;
  try {
    text = readInputTextSync(file, 'project', env);
  } catch (err) {
    if (err instanceof InputFileError) {
      // The file itself is wrong: reported as its other problems are, at its first line (exit 2).
      const { PipelineFileError } = await import('../pipelines/errors.js');
      const full = path.resolve(file);
      throw new PipelineFileError(full, [
        { file: full, line: 1, col: 1, path: '<file>', message: `the file ${err.reason}; ${err.fix}` },
      ]);
    }
    throw usage(`cannot read the project file ${file}: ${(err as Error).message}`);
  }
  // A file with nothing wrong is read without zod; the schema words what is wrong in any other.
  const { readProjectQuickly } = await import('./project-quick.js');
  const quick = readProjectQuickly(text, path.resolve(file), env);
  if (quick) return quick;
  const { parseProjectText } = await import('./project-schema.js');
  return parseProjectText(text, path.resolve(file), env);
}

/**
 * Sets, in `env`, the variables the project file sets and `env` does not (a variable set, even empty, wins: it is
 * how one command overrides the file): the environment a process of the project that reads no project file gets,
 * as settings/settings.ts makes `Settings.env`. Returns the names it set.
 */
export function applyProject(project: Project, env: NodeJS.ProcessEnv): string[] {
  const set: string[] = [];
  for (const [name, value] of Object.entries(project.settings)) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    set.push(name);
    // A data folder refused later (lib/owned-path.ts) names the project file that chose it.
    if (name === 'SCRAPE_ETL_DATA_DIR') noteDataDirOrigin(value, `data_dir in ${project.file}`);
  }
  env[PROJECT_ENV] = project.file;
  return set;
}

let current: Project | null | undefined;

/** The project of this process (found and applied once by cli/main.ts), or undefined without one. */
export async function currentProject(): Promise<Project | undefined> {
  if (current === undefined) {
    const file = findProjectFile();
    current = file ? await loadProject(file) : null;
  }
  return current ?? undefined;
}

/**
 * Finds the project of the current folder and builds this process's settings with it (once per process: the entry
 * point calls it). The environment is left as it is: the settings hold the project's values as their own layer.
 */
export async function enterProject(): Promise<Project | undefined> {
  const project = await currentProject();
  const settings = enterSettings(project ? { file: project.file, settings: project.settings } : undefined);
  // A data folder refused later (lib/owned-path.ts) names the project file that chose it.
  if (project && settings.originOf('dataDir') === 'project')
    noteDataDirOrigin(settings.dataDir, `data_dir in ${project.file}`);
  return project;
}
