// `scrape-etl schema export [pipeline] --format json|dbt|dbml|mermaid`: the tables of one pipeline, or of every
// pipeline of the project, described for an analyst's tool (db/model/schema/catalog.ts, db/model/schema/export-formats.ts).
// The model's tables come from the definition; the columns and tables loads inferred from the destination's
// schema registry, read without creating anything (a destination not there yet exports the model's tables only,
// and stderr says so).
import fs from 'node:fs';
import path from 'node:path';
import { EXIT } from '../lib/exit-codes.js';
import type { PipelineSpec } from '../pipelines/spec.js';

export interface SchemaExportOptions {
  format: string;
  database?: string;
  out?: string;
  sourceName?: string;
  schema?: string;
}

function usageError(message: string): Error {
  return Object.assign(new Error(message), { exitCode: EXIT.usage });
}

/** The specs exported: the pipeline named (file or name), or every pipeline of the project. */
async function specsOf(arg: string | undefined): Promise<PipelineSpec[]> {
  const { loadPipelineFile } = await import('../pipelines/loader.js');
  if (arg !== undefined) {
    const { resolvePipelineRef } = await import('./resolve-pipeline.js');
    const ref = await resolvePipelineRef(arg);
    if (ref.file === undefined)
      throw usageError(ref.note ?? `no pipeline file or project pipeline named '${arg}'; pass the pipeline's file`);
    return [await loadPipelineFile(ref.file)];
  }
  const { currentProject } = await import('./project.js');
  const project = await currentProject();
  if (!project)
    throw usageError(
      'schema export without a pipeline exports every pipeline of the project, and no scrape-etl.yaml was found here or above: name a pipeline file, or run it inside a project',
    );
  const { projectPipelineFiles } = await import('./resolve-pipeline.js');
  const files = await projectPipelineFiles(project);
  if (files.length === 0)
    throw usageError(`the project ${project.file} has no pipeline files (its pipelines: globs match none)`);
  return Promise.all(files.map((f) => loadPipelineFile(f)));
}

export async function schemaExport(arg: string | undefined, o: SchemaExportOptions): Promise<void> {
  const { EXPORT_FORMATS, renderDbml, renderDbt, renderJson, renderMermaid } =
    await import('../db/model/schema/export-formats.js');
  if (!(EXPORT_FORMATS as readonly string[]).includes(o.format))
    throw usageError(`--format ${o.format}: expected one of ${EXPORT_FORMATS.join(', ')}`);
  const specs = await specsOf(arg);
  const databases = [...new Set(specs.map((s) => s.destination.database))];
  const database = o.database ?? databases[0]!;
  if (o.database === undefined && databases.length > 1) {
    const { redactDatabaseUrl } = await import('../db/model/url.js');
    throw usageError(
      `the project's pipelines write to ${databases.length} destinations (${databases.map(redactDatabaseUrl).join(', ')}): export one at a time with --database <url>, or name a pipeline`,
    );
  }
  const { destinationNameOfUrl } = await import('../destinations/url-forms.js');
  const dest = destinationNameOfUrl(database);
  if (dest === undefined)
    throw usageError(`--database ${database}: not a database URL (sqlite:<file>, duckdb:<file> or postgres://…)`);
  const { destinationNamed } = await import('../destinations/index.js');
  const columnTypes = destinationNamed(dest).sql.columnTypes;
  const { KINDS } = await import('../kinds/index.js');
  const { contentTargetOf } = await import('../kinds/content.js');
  const pipelines = specs.map((s) => {
    const content = contentTargetOf(s, KINDS[s.kind]);
    return {
      name: s.name,
      modelTables: KINDS[s.kind].tables,
      ...(content ? { contentTable: content.table } : {}),
      ...(s.schedule
        ? { schedule: { cron: s.schedule.cron, timezone: s.schedule.timezone, paused: s.schedule.paused } }
        : {}),
    };
  });
  const { selectSchemaHistory } = await import('../db/store/evolve/history.js');
  const { contentTableName } = await import('../db/model/evolve/names.js');
  const { readDestination, MissingDatabaseError } = await import('./read-destination.js');
  type History = Awaited<ReturnType<typeof selectSchemaHistory>>;
  let history = new Map<string, History>();
  let schema = o.schema;
  try {
    const read = await readDestination(database, async (r) => {
      const out = new Map<string, History>();
      for (const p of pipelines) out.set(p.name, await selectSchemaHistory(r, p.name, contentTableName(p.name)));
      // The schema the tables are in (dbt's source schema defaults to the source's name, not to the target's):
      // Postgres's and DuckDB's current schema; SQLite has no schemas and no current_schema(), its one is `main`.
      // Asked last: on Postgres a failed statement ends the read transaction.
      const current = await r.all('SELECT current_schema() AS s', []).then(
        (rows) => String(rows[0]?.['s']),
        () => 'main',
      );
      return { out, current };
    });
    history = read.out;
    schema ??= read.current;
  } catch (err) {
    if (!(err instanceof MissingDatabaseError)) throw err;
    process.stderr.write(
      `${err.message}: exporting the model's tables only; the tables loads infer appear after the first run\n`,
    );
  }
  const { buildCatalog } = await import('../db/model/schema/catalog.js');
  const catalog = buildCatalog(pipelines, history, columnTypes);
  const text =
    o.format === 'dbt'
      ? renderDbt(catalog, { sourceName: o.sourceName ?? 'scrape_etl', ...(schema !== undefined ? { schema } : {}) })
      : o.format === 'dbml'
        ? renderDbml(catalog)
        : o.format === 'mermaid'
          ? renderMermaid(catalog)
          : renderJson(catalog);
  if (o.out === undefined) {
    process.stdout.write(text);
    return;
  }
  // Written beside and renamed, so a dbt run reading the file never sees half of it.
  const tmp = path.join(path.dirname(path.resolve(o.out)), `.${path.basename(o.out)}.${process.pid}.partial`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, o.out);
  process.stderr.write(
    `wrote ${o.out}: ${catalog.tables.length} table(s) of ${catalog.pipelines.length} pipeline(s)\n`,
  );
}
