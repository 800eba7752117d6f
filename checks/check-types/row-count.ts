// row_count: rows of a table, the run's (scope: run) or all of the pipeline's (scope: table), within min/max and
// dropping at most max_drop against the previous successful run.
import { z } from 'zod';
import { builtOnce } from '../../lib/built-once.js';
import { tableOnly, type CheckDefinition } from '../definition.js';
import { name, percent, severity, table } from '../fields.js';
import { fmtPct, pct } from '../values.js';

const schema = builtOnce(() =>
  z.strictObject({
    type: z.literal('row_count'),
    name,
    severity,
    table,
    scope: z
      .enum(['run', 'table'])
      .default('run')
      .describe("run: rows this run delivered; table: all of the pipeline's rows"),
    min: z.int().nonnegative().optional(),
    max: z.int().nonnegative().optional(),
    max_drop: percent.optional().describe('largest allowed drop against the previous successful run, e.g. 50%'),
  }),
);

export const rowCountCheck: CheckDefinition<'row_count'> = {
  type: 'row_count',
  description: "rows of a table, this run's or all of the pipeline's, within min and max and dropping at most max_drop",
  get schema() {
    return schema();
  },
  references: (c) => ({
    ...tableOnly(c.table),
    problems:
      c.min !== undefined && c.max !== undefined && c.min > c.max
        ? [{ message: `min (${c.min}) is above max (${c.max})`, path: ['min'] }]
        : [],
  }),
  async evaluate(c, env) {
    let observed: number;
    if (c.scope === 'run') {
      if (!env.rowsLoaded)
        return { status: 'skipped', message: 'counts the rows of a run: evaluated after each run, not on demand' };
      observed = env.rowsLoaded[c.table] ?? 0;
    } else {
      observed = await env.read(async (t) => {
        await t.columnsOrThrow(c.table, []);
        return t.totalRows(c.table);
      });
    }
    const problems: string[] = [];
    const limits: string[] = [];
    if (c.min !== undefined) {
      limits.push(`>= ${c.min}`);
      if (observed < c.min) problems.push(`${observed} rows, fewer than ${c.min}`);
    }
    if (c.max !== undefined) {
      limits.push(`<= ${c.max}`);
      if (observed > c.max) problems.push(`${observed} rows, more than ${c.max}`);
    }
    let shown = `${observed} rows`;
    if (c.max_drop !== undefined) {
      limits.push(`drop <= ${c.max_drop}`);
      const prev = await env.previousObserved(c.name);
      if (prev !== undefined && prev > 0) {
        const drop = ((prev - observed) / prev) * 100;
        shown += ` (previous successful run ${prev}, ${drop >= 0 ? `-${fmtPct(drop)}` : `+${fmtPct(-drop)}`})`;
        if (drop > pct(c.max_drop))
          problems.push(`dropped ${fmtPct(drop)} from ${prev} to ${observed}, more than ${c.max_drop}`);
      }
    }
    return {
      status: problems.length === 0 ? 'pass' : 'fail',
      observed: shown,
      observedValue: observed,
      threshold: limits.join(', ') || null,
      message: problems.length === 0 ? `${c.table}: ${shown}` : `${c.table}: ${problems.join('; ')}`,
    };
  },
};
