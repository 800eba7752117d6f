// The project file's `budget:` for the pipelines of that project: read by the loader (pipelines/loader.ts) beside the
// pipeline's own, so every spec a command starts a run with (run, schedule apply, demo, up's schedules) carries the
// project's limits too. The project file's other problems are cli/project-schema.ts's, which reads it first in every
// command; a budget that does not pass the schema here is reported with the project file's path and the key.
import path from 'node:path';
import { readFile, stat } from 'node:fs/promises';
import { parse as parseYaml } from '../vendor/yaml.js';
import { budgetSchema } from '../budget/schema.js';
import type { ProjectBudgetSpec } from '../budget/types.js';
import { PROJECT_FILE } from '../lib/project-root.js';
import { PipelineFileError } from './errors.js';

/**
 * The budget of each project file read in this process, with the identity of the file it was read from: a command
 * that loads every pipeline of a project (`pipelines`, `validate`, `up`'s schedules) reads the project file once, not
 * once per pipeline, and a process that loads pipelines again later reads it again once it changed.
 */
const read = new Map<string, { stamp: string; budget: ProjectBudgetSpec | undefined }>();

export async function projectBudgetOf(root: string): Promise<ProjectBudgetSpec | undefined> {
  const file = path.join(root, PROJECT_FILE);
  let stamp: string;
  try {
    const s = await stat(file, { bigint: true });
    stamp = `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return undefined; // reported by the project's own reading (cli/project.ts), as below
  }
  const known = read.get(file);
  if (known?.stamp === stamp) return known.budget;
  const budget = await readProjectBudget(file);
  read.set(file, { stamp, budget });
  return budget;
}

async function readProjectBudget(file: string): Promise<ProjectBudgetSpec | undefined> {
  let data: unknown;
  try {
    data = parseYaml(await readFile(file, 'utf8'), { maxAliasCount: 100 });
  } catch {
    // An unreadable or malformed project file is reported by the project's own reading (cli/project.ts).
    return undefined;
  }
  const section = data !== null && typeof data === 'object' ? (data as { budget?: unknown }).budget : undefined;
  if (section === undefined || section === null) return undefined;
  const parsed = budgetSchema.safeParse(section);
  if (!parsed.success) {
    throw new PipelineFileError(
      file,
      parsed.error.issues.map((i) => ({
        file,
        line: 1,
        col: 1,
        path: ['budget', ...i.path.map(String)].join('.'),
        message: i.message,
      })),
    );
  }
  return { ...parsed.data, project: file };
}
