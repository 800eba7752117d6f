// Which databases and pipelines a console or report shows: a --database URL (every pipeline in it), or pipeline
// files (their destinations, each showing only the pipelines of the files that name it), or DATABASE_URL / the
// default database when neither is given.
import type { ConsoleDatabase } from './server.js';
import type { BudgetedSpec } from '../budget/limits.js';

export async function consoleDatabases(o: {
  database?: string | undefined;
  files?: string[] | undefined;
}): Promise<ConsoleDatabase[]> {
  const files = o.files ?? [];
  if (o.database !== undefined && files.length > 0) {
    throw Object.assign(
      new Error('pass either --database or pipeline files, not both (the files name their own destinations)'),
      { exitCode: 2 },
    );
  }
  if (files.length === 0) {
    const { defaultDatabaseUrl } = await import('../destinations/open.js');
    return [{ url: o.database ?? defaultDatabaseUrl() }];
  }
  const { loadPipelineFile } = await import('../pipelines/loader.js');
  const { destinationKey } = await import('../db/model/url.js');
  const byKey = new Map<string, { url: string; pipelines: string[]; budgets?: BudgetedSpec[] }>();
  for (const file of files) {
    const spec = await loadPipelineFile(file);
    const url = spec.destination.database;
    const key = destinationKey(url);
    const entry = byKey.get(key) ?? { url, pipelines: [] };
    if (!entry.pipelines.includes(spec.name)) entry.pipelines.push(spec.name);
    // The Cost page shows spend against the budgets the files (and their project) set.
    if (spec.budget || spec.project_budget)
      entry.budgets = [
        ...(entry.budgets ?? []),
        {
          name: spec.name,
          ...(spec.budget ? { budget: spec.budget } : {}),
          ...(spec.project_budget ? { project_budget: spec.project_budget } : {}),
        },
      ];
    byKey.set(key, entry);
  }
  return [...byKey.values()];
}
