// The `checks:` and `watch:` sections of a pipeline file (zod), and the check that every table and column they
// name exists: fixed tables from db/model/schema/definition.ts, here, so `validate` reports a typo at file:line:col
// before any run. Inferred tables (<pipeline>_items...) are known only from the destination (checks/columns.ts).
import { z } from 'zod';
import { closest, distance } from 'fastest-levenshtein';
import { columnsOf, parseExpression } from '../checks/expression.js';
import type { CheckDefinition, CheckFileOutput, WatchDefinition, WatchFileOutput } from '../checks/definition.js';
import { CHECKS, WATCHES } from '../checks/registry.js';
import { builtOnce } from '../lib/built-once.js';
import { TABLES } from '../db/model/schema/definition.js';
import {
  CHECK_TYPES,
  WATCH_TYPES,
  type CheckSpec,
  type CheckType,
  type PipelineKind,
  type WatchSpec,
  type WatchType,
} from './spec.js';

export { LOGICAL_TYPES } from '../checks/fields.js';

type RawCheck = { [T in CheckType]: CheckFileOutput<T> }[CheckType];
type RawWatch = { [T in WatchType]: WatchFileOutput<T> }[WatchType];
type Member = z.ZodObject<{ type: z.ZodLiteral<string> }>;

// Each member is a strict object whose `type` is a literal (checks/check-types/, checks/watch-types/); the
// registry's types say what each yields, which the union cannot carry through zod's member list.
const check = builtOnce(
  () =>
    z.discriminatedUnion(
      'type',
      CHECK_TYPES.map((t) => CHECKS[t].schema.describe(`${t}: ${CHECKS[t].description}`)) as unknown as [
        Member,
        ...Member[],
      ],
    ) as unknown as z.ZodType<RawCheck>,
);
const watch = builtOnce(
  () =>
    z.discriminatedUnion(
      'type',
      WATCH_TYPES.map((t) => WATCHES[t].schema.describe(`${t}: ${WATCHES[t].description}`)) as unknown as [
        Member,
        ...Member[],
      ],
    ) as unknown as z.ZodType<RawWatch>,
);

// The element schemas, a union of every check (or watch) type, are built when a file first lists one: most
// pipeline files have no checks, and a section left out never reads its element schema.
export const checksSection = z.array(z.lazy(check)).optional();
export const watchSection = z.array(z.lazy(watch)).optional();

export function checkName(c: RawCheck): string {
  if (c.name) return c.name;
  const t = 'table' in c && c.table ? `:${c.table}` : '';
  const col =
    'column' in c && c.column
      ? `.${c.column}`
      : 'columns' in c && Array.isArray(c.columns)
        ? `.${c.columns.join('+')}`
        : '';
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
  p: {
    checks?: RawCheck[] | undefined;
    watch?: RawWatch[] | undefined;
    kind: string;
    notify?: { webhooks: Array<{ on: string[] }> } | undefined;
  },
  tables: readonly string[],
  content: string | undefined,
  ctx: Ctx,
): void {
  const known = content ? [...tables, content] : [...tables];
  const tableOk = (t: string, path: Array<string | number>): boolean => {
    if (known.includes(t) || (content !== undefined && t.startsWith(`${content}__`))) return true;
    const nearest = closest(t, known);
    const hint =
      distance(t, nearest) <= Math.max(2, Math.floor(nearest.length / 3)) ? `did you mean '${nearest}'? ` : '';
    ctx.addIssue({
      code: 'custom',
      path,
      message: `'${t}' is not a table of kind '${p.kind}'; ${hint}its tables: ${known.join(', ')}`,
    });
    return false;
  };
  const columnOk = (t: string, c: string, path: Array<string | number>) => {
    const cols = fixedColumns(t);
    if (!cols || cols.includes(c)) return;
    const nearest = closest(c, cols);
    const hint =
      distance(c, nearest) <= Math.max(2, Math.floor(nearest.length / 3)) ? `did you mean '${nearest}'? ` : '';
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
    if (names.has(n))
      ctx.addIssue({
        code: 'custom',
        path: c.name ? [...at, 'name'] : at,
        message: `a second check named '${n}': give each check its own name`,
      });
    names.add(n);
    // What the check names, as its type says (checks/check-types/).
    const refs = (CHECKS[c.type] as unknown as CheckDefinition<CheckType>).references(c as CheckFileOutput<CheckType>);
    if (refs.table === undefined) continue;
    if (!tableOk(refs.table, [...at, 'table'])) continue;
    for (const r of refs.columns) columnOk(refs.table, r.column, [...at, ...r.path]);
    for (const r of refs.expressions) exprOk(refs.table, r.text, [...at, ...r.path]);
    for (const r of refs.problems) ctx.addIssue({ code: 'custom', path: [...at, ...r.path], message: r.message });
  }
  const watchNames = new Set<string>();
  for (const [i, w] of (p.watch ?? []).entries()) {
    const at = ['watch', i];
    const n = watchName(w);
    if (watchNames.has(n))
      ctx.addIssue({
        code: 'custom',
        path: w.name ? [...at, 'name'] : at,
        message: `a second watch named '${n}': give each watch its own name`,
      });
    watchNames.add(n);
    const def = WATCHES[w.type] as unknown as WatchDefinition<WatchType>;
    const only = def.onlyKinds;
    if (only && !only.kinds.includes(p.kind as PipelineKind)) {
      ctx.addIssue({
        code: 'custom',
        path: [...at, 'type'],
        message: `${w.type} ${only.watches}; this pipeline is kind '${p.kind}' (use new_rows)`,
      });
      continue;
    }
    // A filter over an unknown table cannot have its columns checked.
    const tableKnown = !('table' in w) || tableOk(w.table, [...at, 'table']);
    if (tableKnown && w.filter) exprOk(def.filterTable({ ...w, name: n } as WatchSpec), w.filter, [...at, 'filter']);
    // A watch that no webhook of the file subscribes to would be evaluated and never heard of.
    const hooks = p.notify?.webhooks ?? [];
    if (hooks.length > 0 && !hooks.some((h) => h.on.includes(w.type))) {
      ctx.addIssue({
        code: 'custom',
        path: at,
        message: `no webhook of notify.webhooks subscribes to ${w.type}: add '${w.type}' to a webhook's 'on'`,
      });
    }
  }
}
