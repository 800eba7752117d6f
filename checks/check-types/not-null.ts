// not_null: no row of the pipeline has NULL in any of the columns.
import { z } from 'zod';
import { builtOnce } from '../../lib/built-once.js';
import { tableOnly, type CheckDefinition } from '../definition.js';
import { column, name, severity, table } from '../fields.js';

const schema = builtOnce(() =>
  z.strictObject({ type: z.literal('not_null'), name, severity, table, columns: z.array(column).min(1) }),
);

export const notNullCheck: CheckDefinition<'not_null'> = {
  type: 'not_null',
  description: 'no row has NULL in any of the columns',
  get schema() {
    return schema();
  },
  references: (c) => ({
    ...tableOnly(c.table),
    columns: c.columns.map((column, j) => ({ column, path: ['columns', j] })),
  }),
  evaluate: (c, env) =>
    env.read(async (t) => {
      const cols = await t.columnsOrThrow(c.table, c.columns);
      const where = c.columns.map((col) => `${t.quote(col)} IS NULL`).join(' OR ');
      const { n, keys } = await t.failing(c.table, cols, where, []);
      return {
        status: n === 0 ? 'pass' : 'fail',
        observed: `${n} row${n === 1 ? '' : 's'} with NULL`,
        observedValue: n,
        threshold: '0 rows',
        failingKeys: n > 0 ? keys : null,
        message:
          n === 0
            ? `no NULL in ${c.columns.join(', ')}`
            : `${n} rows of ${c.table} have NULL in ${c.columns.join(' or ')}`,
      };
    }),
};
