// null_rate: the share of the pipeline's rows with NULL in the column is at most `max`.
import { z } from 'zod';
import { builtOnce } from '../../lib/built-once.js';
import { tableOnly, type CheckDefinition } from '../definition.js';
import { column, name, percent, severity, table } from '../fields.js';
import { fmtPct, pct } from '../values.js';

const schema = builtOnce(() =>
  z.strictObject({ type: z.literal('null_rate'), name, severity, table, column, max: percent }),
);

export const nullRateCheck: CheckDefinition<'null_rate'> = {
  type: 'null_rate',
  description: 'the share of rows with NULL in the column is at most max',
  get schema() {
    return schema();
  },
  references: (c) => ({ ...tableOnly(c.table), columns: [{ column: c.column, path: ['column'] }] }),
  evaluate: (c, env) =>
    env.read(async (t) => {
      const cols = await t.columnsOrThrow(c.table, [c.column]);
      const total = await t.totalRows(c.table);
      const { n, keys } = await t.failing(c.table, cols, `${t.quote(c.column)} IS NULL`, []);
      const rate = total === 0 ? 0 : (n / total) * 100;
      const ok = rate <= pct(c.max);
      return {
        status: ok ? 'pass' : 'fail',
        observed: `${fmtPct(rate)} (${n} of ${total} rows)`,
        observedValue: rate,
        threshold: `<= ${c.max}`,
        failingKeys: ok ? null : keys,
        message: `${c.table}.${c.column} is NULL in ${fmtPct(rate)} of rows (${n} of ${total}); at most ${c.max} allowed`,
      };
    }),
};
