// `scrape-etl schema show <pipeline>`: the tables of a pipeline, the model's (their fixed columns and natural key,
// then the columns its loads added) and the inferred ones (<pipeline>_items and its child tables), their columns and
// types, and the change history (schema_history); `scrape-etl rebuild <pipeline file>`:
// re-derives those tables from the landed raw responses without calling the service (db/store/rebuild.ts).
import { EXIT } from '../../lib/exit-codes.js';
import fs from 'node:fs';
import type { Command } from '../../vendor/commander.js';
import { addDatabaseOption } from '../options.js';

interface Target {
  name: string;
  database: string;
  kind?: string;
}

function usageError(message: string): Error {
  return Object.assign(new Error(message), { exitCode: EXIT.usage });
}

/** A pipeline file, or a pipeline name (through the project); --database wins over its destination. */
async function resolveTarget(arg: string, db: string | undefined): Promise<Target & { file?: string }> {
  const { resolvePipelineRef, defaultDatabaseUrl } = await import('../resolve-pipeline.js');
  const ref = await resolvePipelineRef(arg);
  return {
    name: ref.name,
    database: db ?? ref.database ?? defaultDatabaseUrl(),
    ...(ref.file !== undefined ? { file: ref.file } : {}),
  };
}

/** rebuild writes, so it opens the database the ordinary way; but never creates one (a mistyped path is an error). */
async function openExisting(url: string) {
  const { openDatabase } = await import('../../destinations/open.js');
  const { databaseFile, MissingDatabaseError } = await import('../read-destination.js');
  const file = databaseFile(url);
  if (file !== undefined && !fs.existsSync(file))
    throw new MissingDatabaseError(
      `no database at ${file} (the file does not exist; check --database or the pipeline's destination)`,
    );
  return openDatabase(url);
}

/** The original key a column holds, as `schema show` prints it: `key "a b", ` (JSON strings, paths joined by `.`). */
function keyText(c: { change: string; key: unknown }): string {
  if (c.change === 'create_table' || c.key === null) return '';
  const k = c.key as unknown[] | { overflow?: boolean; variant_of?: unknown[] };
  if (Array.isArray(k)) return k.length === 0 ? 'list element, ' : `key ${k.map((p) => JSON.stringify(p)).join('.')}, `;
  if (k.overflow) return 'JSON of the fields past the column budget, ';
  return '';
}

export function register(program: Command): void {
  const schema = program
    .command('schema')
    .description(
      "inspect a pipeline's tables: the model's fixed columns and natural keys, the columns its loads inferred, and how they changed",
    );
  const show = schema
    .command('show')
    .description(
      'tables, columns, types and the change history of a pipeline (a pipeline file, or a name found through the project; its destination is read)',
    )
    .argument('<pipeline>', 'pipeline file, or pipeline name');
  addDatabaseOption(
    show,
    "database URL (default: the pipeline's destination, else DATABASE_URL, the project's destination or sqlite:./data/scrape-etl.sqlite)",
  )
    .option(
      '--json',
      'print JSON: { pipeline, tables: [{ table, fixed, natural_key, fixed_columns: [{ column, type, natural_key }], columns: [{ column, key, type, change, variant_of, load_id, changed_at }] }] } (fixed: a table of the model; columns: those loads added; key: the original JSON key path the column holds)',
    )
    .action(async (arg: string, opts: { database?: string; json?: boolean }) => {
      const target = await resolveTarget(arg, opts.database);
      const { contentTableName } = await import('../../db/model/evolve/names.js');
      const { selectSchemaHistory } = await import('../../db/store/evolve/history.js');
      const { readDestination } = await import('../read-destination.js');
      const { DATA_TABLES } = await import('../../db/model/table-names.js');
      const { TABLES } = await import('../../db/model/schema/definition.js');
      const { quoteIdent } = await import('../../db/store/sql.js');
      const { cols, fixedTables } = await readDestination(target.database, async (r) => {
        const cols = await selectSchemaHistory(r, target.name, contentTableName(target.name));
        // The model's tables this pipeline uses: those holding its rows, and those its loads evolved.
        const used: string[] = [];
        for (const t of DATA_TABLES) {
          if (cols.some((c) => c.table === t)) used.push(t);
          else if (
            (
              await r
                .all(`SELECT 1 AS one FROM ${quoteIdent(t)} WHERE pipeline = ${r.ph(1)} LIMIT 1`, [target.name])
                .catch(() => [])
            ).length > 0
          )
            used.push(t);
        }
        return { cols, fixedTables: used };
      });
      const { destinationNamed, destinationOfUrl } = await import('../../destinations/index.js');
      const columnTypes = (destinationOfUrl(target.database)?.adapter ?? destinationNamed('sqlite')).sql.columnTypes;
      // What each table and column means: the catalog's descriptions, as `schema export` and the database's comments.
      const { catalogTableOf } = await import('../../db/model/schema/catalog.js');
      const docsOf = (table: string) =>
        catalogTableOf(target.name, table, cols, columnTypes, contentTableName(target.name));
      // A fixed table's columns are the model's (db/model/schema/definition.ts), listed before the columns loads added to
      // it; its natural key is said (the key rows are upserted on).
      const fixedOf = (table: string) => {
        const def = (
          TABLES as unknown as Record<
            string,
            { columns: Record<string, { type: string; identity?: true }>; primaryKey?: readonly string[] }
          >
        )[table];
        if (!def) return undefined;
        const identity = Object.entries(def.columns).find(([, c]) => c.identity)?.[0];
        const naturalKey = (def.primaryKey ?? (identity ? [identity] : [])).filter((c) => c !== 'pipeline');
        return {
          naturalKey,
          columns: Object.entries(def.columns).map(([column, c]) => ({
            column,
            type: c.type,
            natural_key: naturalKey.includes(column),
          })),
        };
      };
      // Which pipeline and load wrote each row (every data table has them).
      const LINEAGE = new Set(['pipeline', 'load_id', 'loaded_at', 'row_hash']);
      const tables = new Map<string, typeof cols>();
      for (const t of fixedTables) tables.set(t, []);
      for (const c of cols) tables.set(c.table, [...(tables.get(c.table) ?? []), c]);
      if (opts.json) {
        const out = {
          pipeline: target.name,
          tables: [...tables].map(([table, columns]) => {
            const fixed = fixedOf(table);
            const docs = docsOf(table);
            return {
              table,
              ...(docs
                ? {
                    description: docs.description,
                    column_descriptions: Object.fromEntries(docs.columns.map((c) => [c.name, c.description])),
                  }
                : {}),
              ...(fixed
                ? { fixed: true, natural_key: fixed.naturalKey, fixed_columns: fixed.columns }
                : { fixed: false }),
              columns: columns.map((c) => ({
                column: c.column,
                key: c.key,
                type: c.type,
                change: c.change,
                variant_of: c.variantOf,
                pipeline: c.pipeline,
                load_id: c.loadId,
                changed_at: c.changedAt,
              })),
            };
          }),
        };
        process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        return;
      }
      if (tables.size === 0) {
        process.stdout.write(
          `pipeline '${target.name}' has no inferred tables or columns in ${target.database} yet, and no rows in the model's tables (they appear with its first load)\n`,
        );
        return;
      }
      // The database read comes first, as every reading command says it.
      const inferred = [...tables.keys()].some((t) => fixedOf(t) === undefined);
      process.stdout.write(
        inferred
          ? `pipeline '${target.name}' in ${target.database}:\n`
          : `pipeline '${target.name}' has no inferred tables or columns in ${target.database}; the model's tables it uses:\n`,
      );
      for (const [table, columns] of tables) {
        const created = columns.find((c) => c.change === 'create_table');
        const listPath =
          Array.isArray(created?.key) && created.key.length > 0
            ? `  (list ${(created.key as string[][]).map((p) => p.join('.')).join(' > ')})`
            : '';
        const fixed = fixedOf(table);
        const docs = docsOf(table);
        process.stdout.write(
          `${table}${listPath}${fixed ? `  (model table; natural key: ${fixed.naturalKey.join(', ') || 'none'})` : ''}\n`,
        );
        if (docs) process.stdout.write(`  ${docs.description}\n`);
        // A fixed column's meaning is on the line below it; an inferred column's line says its key and type already.
        const described = (column: string) => docs?.columns.find((d) => d.name === column)?.description;
        const width = Math.max(
          ...columns.map((c) => c.column.length),
          ...(fixed?.columns.map((c) => c.column.length) ?? []),
        );
        for (const c of fixed?.columns ?? []) {
          process.stdout.write(
            `  ${c.column.padEnd(width)}  ${c.type.padEnd(11)}  fixed${c.natural_key ? ', natural key' : LINEAGE.has(c.column) ? ', lineage' : ''}\n`,
          );
          const d = described(c.column);
          if (d) process.stdout.write(`      ${d}\n`);
        }
        for (const c of columns) {
          const why =
            c.change === 'add_variant'
              ? `variant of ${c.variantOf}`
              : c.change === 'create_table'
                ? 'table created'
                : 'column added';
          process.stdout.write(
            `  ${c.column.padEnd(width)}  ${c.type.padEnd(11)}  ${keyText(c)}${why}, load ${c.loadId}, ${c.changedAt}${c.pipeline === target.name ? '' : ` (pipeline ${c.pipeline})`}\n`,
          );
        }
      }
    });

  const exp = schema
    .command('export')
    .description(
      'every table of a pipeline (or of every pipeline of the project) with its columns, types, descriptions, natural key, lineage columns and relations, for dbt (sources.yml), JSON, DBML or Mermaid',
    )
    .argument('[pipeline]', 'pipeline file, or pipeline name (default: every pipeline of the project)')
    .option('--format <format>', 'json | dbt | dbml | mermaid', 'json')
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--source-name <name>', "dbt: the source's name (source('<name>', '<table>'))", 'scrape_etl')
    .option('--schema <schema>', "dbt: the database schema of the tables (default: the dbt target's schema)");
  addDatabaseOption(exp, "database URL whose inferred tables are read (default: the pipelines' destination)").action(
    async (
      arg: string | undefined,
      opts: { format: string; out?: string; sourceName?: string; schema?: string; database?: string },
    ) => {
      const { schemaExport } = await import('../schema-export.js');
      await schemaExport(arg, opts);
    },
  );

  const rebuild = program
    .command('rebuild')
    .description(
      "re-derive a pipeline's inferred tables (<pipeline>_items …) from its landed raw responses, without calling the service (after changing merge_key, or a fix)",
    )
    .argument('<pipeline>', 'the pipeline file, or its name in the project (its merge_key and schema mode apply)');
  addDatabaseOption(rebuild, "database URL (default: the pipeline's destination)")
    .option('--json', 'print the counts as JSON')
    .action(async (file: string, opts: { database?: string; json?: boolean }) => {
      const { resolvePipelineFile } = await import('../resolve-pipeline.js');
      const { loadPipelineFile } = await import('../../pipelines/loader.js');
      const spec = await loadPipelineFile(await resolvePipelineFile(file));
      const target = { name: spec.name, database: opts.database ?? spec.destination.database, kind: spec.kind, spec };
      const { KINDS } = await import('../../kinds/index.js');
      const { contentTargetOf } = await import('../../kinds/content.js');
      const content = contentTargetOf(target.spec, KINDS[target.spec.kind]);
      if (!content)
        throw usageError(
          `pipeline '${target.name}' is of kind ${target.spec.kind}, which has no inferred content tables to rebuild`,
        );
      const { rebuildContentTables } = await import('../../db/store/rebuild.js');
      const db = await openExisting(target.database);
      try {
        const out = await rebuildContentTables(db, target.name, content);
        if (opts.json) process.stdout.write(`${JSON.stringify({ pipeline: target.name, ...out })}\n`);
        else {
          process.stdout.write(
            `rebuilt ${content.table} from ${out.responses} raw response(s), ${out.results} result(s):\n`,
          );
          for (const [t, n] of Object.entries(out.rowsByTable)) process.stdout.write(`  ${t}: ${n} row(s)\n`);
        }
      } finally {
        await db.close();
      }
    });
}
