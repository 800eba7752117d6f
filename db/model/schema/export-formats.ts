// `scrape-etl schema export --format json|dbt|dbml|mermaid`: the catalog (catalog.ts) written for a tool. The dbt
// form is a sources.yml dbt accepts as is: the natural key's columns not_null and the key unique (a composite key
// as one expression), relationships from each child table to its parent, accepted_values on closed columns, the
// freshness of each scheduled pipeline on the pipeline_freshness view (filtered to the pipeline), and every
// description. Tests are scoped to the exported pipelines' rows (`where: pipeline in (…)`): other pipelines share
// the tables.
import { stringify } from '../../../vendor/yaml.js';
import type { Catalog, CatalogTable } from './catalog.js';

export const EXPORT_FORMATS = ['json', 'dbt', 'dbml', 'mermaid'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface DbtOptions {
  /** The dbt source's name (`source('<name>', '<table>')`). */
  sourceName: string;
  /** The database schema holding the tables; unset: the target's schema. */
  schema?: string;
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** A key of several columns as one value both Postgres and DuckDB compare (concat_ws skips no value here: each is not null). */
function keyExpression(columns: readonly string[]): string {
  return columns.length === 1 ? columns[0]! : `concat_ws('|', ${columns.join(', ')})`;
}

function pipelineFilter(t: CatalogTable, all: readonly string[], prefix = ''): string | undefined {
  if (!t.columns.some((c) => c.name === 'pipeline')) return undefined;
  const names = t.pipelines.length > 0 ? t.pipelines : all;
  return `${prefix}pipeline in (${names.map(sqlString).join(', ')})`;
}

function dbtTable(t: CatalogTable, catalog: Catalog, sourceName: string): Record<string, unknown> {
  const where = pipelineFilter(t, catalog.pipelines);
  const scoped = (test: Record<string, unknown>) =>
    where ? { ...test, config: { ...(test['config'] as object | undefined), where } } : test;
  const columns = t.columns.map((c) => {
    const tests: unknown[] = [];
    if (c.naturalKey) tests.push(where ? { not_null: { config: { where } } } : 'not_null');
    if (c.naturalKey && t.naturalKey.length === 1) tests.push(where ? { unique: { config: { where } } } : 'unique');
    const accepted = t.acceptedValues[c.name];
    if (accepted) {
      tests.push({
        accepted_values: scoped({
          arguments: { values: [...accepted.values] },
          // The service's statuses beyond those its contract shows would be news, not broken data.
          ...(accepted.source === 'service' ? { config: { severity: 'warn' } } : {}),
        }),
      });
    }
    return {
      name: c.name,
      description: c.description,
      data_type: c.sqlType,
      ...(tests.length > 0 ? { data_tests: tests } : {}),
    };
  });
  const tableTests: unknown[] = [];
  if (t.naturalKey.length > 1)
    tableTests.push({ unique: scoped({ arguments: { column_name: keyExpression(t.naturalKey) } }) });
  for (const r of t.relations) {
    tableTests.push({
      relationships: scoped({
        arguments: {
          column_name: keyExpression(r.columns),
          to: `source('${sourceName}', '${r.parent}')`,
          field: keyExpression(r.parentColumns),
        },
      }),
    });
  }
  const meta: Record<string, unknown> = {
    kind: t.kind,
    natural_key: t.naturalKey,
    lineage_columns: t.lineageColumns,
    pipelines: t.pipelines,
  };
  return {
    name: t.name,
    description: t.description,
    meta,
    // A table whose rows carry last_seen_at is as fresh as the last run that saw them, changed or not: dbt's
    // freshness on loaded_at would fail for a daily pipeline whose data did not change although it ran.
    ...(t.columns.some((c) => c.name === 'last_seen_at')
      ? { loaded_at_field: 'last_seen_at' }
      : t.lineageColumns.includes('loaded_at')
        ? { loaded_at_field: 'loaded_at' }
        : {}),
    columns,
    ...(tableTests.length > 0 ? { data_tests: tableTests } : {}),
  };
}

export function renderDbt(catalog: Catalog, o: DbtOptions): string {
  const tables = catalog.tables.map((t) => dbtTable(t, catalog, o.sourceName));
  // Each scheduled pipeline's freshness: the view under a name of its own (dbt takes one freshness per table).
  for (const f of catalog.freshness) {
    tables.push({
      name: `freshness_${f.pipeline.replace(/[^A-Za-z0-9_]/g, '_')}`,
      identifier: 'pipeline_freshness',
      description: `When pipeline ${f.pipeline} last loaded (schedule ${f.cron} ${f.timezone}: at most ${f.intervalMinutes} minutes between runs).`,
      loaded_at_field: 'last_seen_at',
      freshness: {
        warn_after: { count: f.warnAfterMinutes, period: 'minute' },
        error_after: { count: f.errorAfterMinutes, period: 'minute' },
        filter: `pipeline = ${sqlString(f.pipeline)}`,
      },
    });
  }
  const source: Record<string, unknown> = {
    name: o.sourceName,
    description: `Tables scrape-etl loads (pipelines: ${catalog.pipelines.join(', ')}). Generated by \`scrape-etl schema export --format dbt\`; docs/warehouse.md explains the model.`,
    ...(o.schema !== undefined ? { schema: o.schema } : {}),
    tables,
  };
  const text = stringify({ version: 2, sources: [source] }, { lineWidth: 0 });
  return `# Generated by scrape-etl schema export --format dbt: regenerate rather than edit.\n${text}`;
}

export function renderJson(catalog: Catalog): string {
  return `${JSON.stringify(catalog, null, 2)}\n`;
}

const dbmlString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const dbmlName = (s: string) => `"${s.replace(/"/g, '\\"')}"`;

export function renderDbml(catalog: Catalog): string {
  const out: string[] = ['// Generated by scrape-etl schema export --format dbml', ''];
  for (const t of catalog.tables) {
    out.push(`Table ${dbmlName(t.name)} [note: ${dbmlString(t.description)}] {`);
    for (const c of t.columns) {
      const settings = [...(c.notNull ? ['not null'] : []), `note: ${dbmlString(c.description)}`];
      out.push(`  ${dbmlName(c.name)} ${dbmlName(c.sqlType)} [${settings.join(', ')}]`);
    }
    if (t.naturalKey.length > 0 && t.kind !== 'view') {
      out.push('  indexes {', `    (${t.naturalKey.map(dbmlName).join(', ')}) [pk]`, '  }');
    }
    out.push('}', '');
  }
  for (const t of catalog.tables) {
    for (const r of t.relations) {
      out.push(
        `Ref: ${dbmlName(t.name)}.(${r.columns.map(dbmlName).join(', ')}) > ${dbmlName(r.parent)}.(${r.parentColumns.map(dbmlName).join(', ')})`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}

/** Mermaid's entity and attribute names take word characters only; its comments no double quote. */
const mermaidName = (s: string) => s.replace(/[^A-Za-z0-9_]/g, '_');
const mermaidComment = (s: string) => s.replace(/"/g, "'");

export function renderMermaid(catalog: Catalog): string {
  const out: string[] = ['erDiagram'];
  for (const t of catalog.tables) {
    out.push(`  ${mermaidName(t.name)} {`);
    for (const c of t.columns) {
      const keys = [
        ...(c.naturalKey ? ['PK'] : []),
        ...(t.relations.some((r) => r.columns.includes(c.name) && c.name !== 'pipeline') ? ['FK'] : []),
      ];
      out.push(
        `    ${mermaidName(c.type)} ${mermaidName(c.name)}${keys.length ? ` ${keys.join(', ')}` : ''} "${mermaidComment(c.description)}"`,
      );
    }
    out.push('  }');
  }
  for (const t of catalog.tables) {
    for (const r of t.relations) {
      out.push(
        `  ${mermaidName(r.parent)} ||--o{ ${mermaidName(t.name)} : "${mermaidComment(r.columns.filter((c) => c !== 'pipeline').join(', '))}"`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}
