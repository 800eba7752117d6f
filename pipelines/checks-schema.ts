// The `checks:` and `watch:` sections of a pipeline file (zod), and the check that every table and column they
// name exists: fixed tables from db/schema/definition.ts, here, so `validate` reports a typo at file:line:col
// before any run. Inferred tables (<pipeline>_items...) are known only from the destination (checks/columns.ts).
import { z } from 'zod';
import { closest, distance } from 'fastest-levenshtein';
import { DURATION_PATTERN } from './duration.js';
import { nonEmpty, positiveInt } from './fields.js';
import { ExpressionError, columnsOf, parseExpression } from '../checks/expression.js';
import { TABLES } from '../db/schema/definition.js';
import type { CheckSpec, WatchSpec } from './spec.js';

const PERCENT = /^[0-9]+(\.[0-9]+)?%$/;
const percent = z.string().regex(PERCENT, "expected a percentage such as '5%' or '50%'");
const severity = z.enum(['warn', 'error']).default('error').describe('error: the run ends failed_checks; warn: an alert only');
const name = z.string().regex(/^[A-Za-z0-9_.:-]+$/, 'expected letters, digits and _ . : -').max(200).optional();
const table = nonEmpty.describe('a table the pipeline writes');
const column = nonEmpty;

const expression = z.string().superRefine((s, ctx) => {
  try {
    parseExpression(s);
  } catch (err) {
    if (err instanceof ExpressionError) ctx.addIssue({ code: 'custom', message: `${err.message} (at character ${err.offset + 1} of '${s}')` });
    else throw err;
  }
});

export const LOGICAL_TYPES = ['int', 'double', 'text', 'bool', 'json', 'timestamp', 'any'] as const;

const check = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('row_count'),
    name,
    severity,
    table,
    scope: z.enum(['run', 'table']).default('run').describe("run: rows this run delivered; table: all of the pipeline's rows"),
    min: z.int().nonnegative().optional(),
    max: z.int().nonnegative().optional(),
    max_drop: percent.optional().describe('largest allowed drop against the previous successful run, e.g. 50%'),
  }),
  z.strictObject({ type: z.literal('not_null'), name, severity, table, columns: z.array(column).min(1) }),
  z.strictObject({ type: z.literal('null_rate'), name, severity, table, column, max: percent }),
  z.strictObject({ type: z.literal('unique'), name, severity, table, columns: z.array(column).min(1) }),
  z.strictObject({
    type: z.literal('accepted_values'),
    name,
    severity,
    table,
    column,
    values: z.array(z.union([z.string(), z.number(), z.boolean()])).min(1),
  }),
  z.strictObject({ type: z.literal('range'), name, severity, table, expression: expression.describe("every row must satisfy it, e.g. 'price_major > 0'") }),
  z.strictObject({ type: z.literal('sql'), name, severity, sql: nonEmpty.describe('a read-only query that must return no rows') }),
  z.strictObject({
    type: z.literal('freshness'),
    name,
    severity,
    table: table.optional().describe('without a table: the last successful run'),
    column: column.optional().describe('time column of the table; default loaded_at'),
    max_age: z.string().regex(new RegExp(DURATION_PATTERN), "expected a duration such as '26h' or '30m'"),
  }),
  z.strictObject({ type: z.literal('schema'), name, severity, table, columns: z.record(z.string(), z.enum(LOGICAL_TYPES)) }),
]);

const watchBase = {
  name,
  filter: expression.optional().describe('only rows satisfying this expression trigger the event'),
  top: positiveInt.max(100).default(10).describe('rows listed in a Slack message'),
};
const level = z.enum(['product', 'model']).default('product');
const watch = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.enum(['price_drop', 'price_rise']),
    ...watchBase,
    by: z
      .union([z.number().positive(), z.string().regex(/^[0-9]+(\.[0-9]+)?%?$/, "expected a percentage ('10%') or an amount in major units ('5')")])
      .transform(String)
      .describe("a percentage ('10%') or an amount in major units ('5')"),
    level,
  }),
  z.strictObject({ type: z.enum(['back_in_stock', 'out_of_stock']), ...watchBase, level }),
  z.strictObject({ type: z.literal('new_rows'), ...watchBase, table }),
]);

export const checksSection = z.array(check).optional();
export const watchSection = z.array(watch).optional();

type RawCheck = z.output<typeof check>;
type RawWatch = z.output<typeof watch>;

export function checkName(c: RawCheck): string {
  if (c.name) return c.name;
  const t = 'table' in c && c.table ? `:${c.table}` : '';
  const col = 'column' in c && c.column ? `.${c.column}` : 'columns' in c && Array.isArray(c.columns) ? `.${c.columns.join('+')}` : '';
  return `${c.type}${t}${col}`;
}

export function watchName(w: RawWatch): string {
  return w.name ?? (w.type === 'new_rows' ? `new_rows:${w.table}` : w.type);
}

export function withCheckNames(checks: RawCheck[] | undefined): CheckSpec[] | undefined {
  return checks?.map((c) => ({ ...c, name: checkName(c) }) as CheckSpec);
}
export function withWatchNames(watches: RawWatch[] | undefined): WatchSpec[] | undefined {
  return watches?.map((w) => ({ ...w, name: watchName(w) }) as WatchSpec);
}

/** Columns of a fixed table, or undefined for a table that is not one (inferred tables). */
export function fixedColumns(tableName: string): string[] | undefined {
  const def = (TABLES as Record<string, { columns: Record<string, unknown> }>)[tableName];
  return def ? Object.keys(def.columns) : undefined;
}

type Ctx = z.RefinementCtx;

/**
 * Tables and columns named by checks and watches. `tables`: what the kind writes; `content`: the inferred table's
 * name (or undefined), whose columns cannot be known here.
 */
export function checkCheckAndWatchNames(
  p: { checks?: RawCheck[] | undefined; watch?: RawWatch[] | undefined; kind: string; notify?: { webhooks: Array<{ on: string[] }> } | undefined },
  tables: readonly string[],
  content: string | undefined,
  ctx: Ctx,
): void {
  const known = content ? [...tables, content] : [...tables];
  const tableOk = (t: string, path: Array<string | number>): boolean => {
    if (known.includes(t) || (content !== undefined && t.startsWith(`${content}__`))) return true;
    const nearest = closest(t, known);
    const hint = distance(t, nearest) <= Math.max(2, Math.floor(nearest.length / 3)) ? `did you mean '${nearest}'? ` : '';
    ctx.addIssue({ code: 'custom', path, message: `'${t}' is not a table of kind '${p.kind}'; ${hint}its tables: ${known.join(', ')}` });
    return false;
  };
  const columnOk = (t: string, c: string, path: Array<string | number>) => {
    const cols = fixedColumns(t);
    if (!cols || cols.includes(c)) return;
    const nearest = closest(c, cols);
    const hint = distance(c, nearest) <= Math.max(2, Math.floor(nearest.length / 3)) ? `did you mean '${nearest}'? ` : '';
    const listed = cols.length > 30 ? `${cols.slice(0, 30).join(', ')}, … (${cols.length} in all)` : cols.join(', ');
    ctx.addIssue({ code: 'custom', path, message: `table '${t}' has no column '${c}'; ${hint}its columns: ${listed}` });
  };
  const exprOk = (t: string, text: string, path: Array<string | number>) => {
    let cols: string[];
    try {
      cols = columnsOf(parseExpression(text));
    } catch {
      return; // reported by the expression's own refinement
    }
    for (const c of new Set(cols)) columnOk(t, c, path);
  };
  const names = new Set<string>();
  for (const [i, c] of (p.checks ?? []).entries()) {
    const at = ['checks', i];
    const n = checkName(c);
    if (names.has(n)) ctx.addIssue({ code: 'custom', path: c.name ? [...at, 'name'] : at, message: `a second check named '${n}': give each check its own name` });
    names.add(n);
    if (!('table' in c) || c.table === undefined) continue;
    if (!tableOk(c.table, [...at, 'table'])) continue;
    if ('column' in c && c.column !== undefined) columnOk(c.table, c.column, [...at, 'column']);
    if ((c.type === 'not_null' || c.type === 'unique') && Array.isArray(c.columns)) {
      for (const [j, col] of c.columns.entries()) columnOk(c.table, col, [...at, 'columns', j]);
    }
    if (c.type === 'range') exprOk(c.table, c.expression, [...at, 'expression']);
    if (c.type === 'row_count' && c.min !== undefined && c.max !== undefined && c.min > c.max) {
      ctx.addIssue({ code: 'custom', path: [...at, 'min'], message: `min (${c.min}) is above max (${c.max})` });
    }
  }
  const watchNames = new Set<string>();
  for (const [i, w] of (p.watch ?? []).entries()) {
    const at = ['watch', i];
    const n = watchName(w);
    if (watchNames.has(n)) ctx.addIssue({ code: 'custom', path: w.name ? [...at, 'name'] : at, message: `a second watch named '${n}': give each watch its own name` });
    watchNames.add(n);
    if (w.type === 'new_rows') {
      if (tableOk(w.table, [...at, 'table']) && w.filter) exprOk(w.table, w.filter, [...at, 'filter']);
    } else {
      if (p.kind !== 'marketplace') {
        ctx.addIssue({ code: 'custom', path: [...at, 'type'], message: `${w.type} watches marketplace prices and stock; this pipeline is kind '${p.kind}' (use new_rows)` });
        continue;
      }
      // Price watches filter the price history; stock watches the models (or products) they compare.
      const t = w.type === 'price_drop' || w.type === 'price_rise' ? 'marketplace_price_history' : w.level === 'model' ? 'marketplace_product_models' : 'marketplace_products';
      if (w.filter) exprOk(t, w.filter, [...at, 'filter']);
    }
    // A watch that no webhook of the file subscribes to would be evaluated and never heard of.
    const hooks = p.notify?.webhooks ?? [];
    if (hooks.length > 0 && !hooks.some((h) => h.on.includes(w.type))) {
      ctx.addIssue({ code: 'custom', path: at, message: `no webhook of notify.webhooks subscribes to ${w.type}: add '${w.type}' to a webhook's 'on'` });
    }
  }
}
