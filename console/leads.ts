// A leads pipeline's leads: the root table of its open content (`<pipeline>_items`, one row per lead) with its
// child tables (social profiles, ...) joined by the child's root_key (indexed with pipeline), one page at a time.
// A leads pipeline without open-content tables shows leads_results.
import { quoteIdent } from '../db/store/sql.js';
import { contentTables, tableExists } from './catalog.js';
import { dataPage, type DataPage } from './data.js';
import type { Reader, Row } from './source.js';
import { isoTime, num } from './values.js';

/** Columns every content row carries for lineage and joins; not shown as the lead's own fields. */
const SYSTEM = new Set([
  'pipeline',
  'row_key',
  'root_key',
  'parent_key',
  'list_index',
  'load_id',
  'loaded_at',
  'row_hash',
]);

export interface LeadsPage {
  table: string;
  page: DataPage;
  /** Fields shown for each lead (the root table's own columns). */
  fields: string[];
  children: Array<{ table: string; label: string; fields: string[]; byParent: Map<string, Row[]> }>;
  perRun: Array<{ workflowId: string; startedAt: string | null; leads: number }>;
}

export async function leadsTables(
  r: Reader,
  pipeline: string,
): Promise<{ root: string; children: string[] } | undefined> {
  const content = await contentTables(r, pipeline);
  const root = content.find((t) => !t.includes('__'));
  if (root)
    return {
      root,
      children: content.filter((t) => t.startsWith(`${root}__`) && !t.slice(root.length + 2).includes('__')),
    };
  if (await tableExists(r, 'leads_results')) return { root: 'leads_results', children: [] };
  return undefined;
}

export async function leadsPage(
  r: Reader,
  pipeline: string,
  opts: { after?: string | undefined; limit?: number },
): Promise<LeadsPage | undefined> {
  const t = await leadsTables(r, pipeline);
  if (!t) return undefined;
  const page = await dataPage(r, { table: t.root, pipeline, after: opts.after, limit: opts.limit ?? 50 });
  const fields = page.meta.columns.map((c) => c.name).filter((c) => !SYSTEM.has(c));
  const keys = page.rows
    .map((x) => x['row_key'])
    .filter((k) => k !== null && k !== undefined)
    .map(String);
  const children: LeadsPage['children'] = [];
  for (const child of t.children) {
    const byParent = new Map<string, Row[]>();
    let childFields: string[] = [];
    if (keys.length > 0) {
      const params: unknown[] = [pipeline, ...keys];
      const rows = await r.all(
        `SELECT * FROM ${quoteIdent(child)} WHERE pipeline = ${r.ph(1)} AND root_key IN (${keys.map((_, i) => r.ph(i + 2)).join(', ')}) ORDER BY root_key, list_index LIMIT 10000`,
        params,
      );
      for (const x of rows) {
        // Direct children only: a grandchild's parent is another child row.
        if (String(x['parent_key']) !== String(x['root_key'])) continue;
        const k = String(x['root_key']);
        byParent.set(k, [...(byParent.get(k) ?? []), x]);
      }
      childFields = Object.keys(rows[0] ?? {}).filter((c) => !SYSTEM.has(c));
    }
    children.push({
      table: child,
      label: child.slice(t.root.length + 2).replace(/_/g, ' '),
      fields: childFields,
      byParent,
    });
  }
  return { table: t.root, page, fields, children, perRun: await leadsPerRun(r, pipeline, t.root) };
}

/**
 * Leads per run: the leads whose current version a run loaded (an unchanged lead keeps the load id of the run that
 * last changed it, so a run counts the leads it added or changed).
 */
export async function leadsPerRun(r: Reader, pipeline: string, root: string): Promise<LeadsPage['perRun']> {
  if (!(await tableExists(r, 'raw_responses')) || !(await tableExists(r, 'pipeline_runs'))) return [];
  const rows = await r.all(
    `SELECT rr.workflow_id AS workflow_id, count(*) AS n FROM ${quoteIdent(root)} l JOIN raw_responses rr ON rr.id = l.load_id
      WHERE l.pipeline = ${r.ph(1)} GROUP BY rr.workflow_id`,
    [pipeline],
  );
  const counts = new Map(rows.map((x) => [String(x['workflow_id']), num(x['n']) ?? 0]));
  const runs = await r.all(
    `SELECT workflow_id, started_at FROM pipeline_runs WHERE pipeline = ${r.ph(1)} ORDER BY id DESC LIMIT 100`,
    [pipeline],
  );
  return runs
    .map((x) => ({
      workflowId: String(x['workflow_id']),
      startedAt: isoTime(x['started_at']),
      leads: counts.get(String(x['workflow_id'])) ?? 0,
    }))
    .reverse();
}
