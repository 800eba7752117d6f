// accepted_values: every non-NULL value of the column is one of `values`.
import { z } from 'zod';
import { builtOnce } from '../../lib/built-once.js';
import type { Param } from '../../db/store/sql.js';
import { tableOnly, type CheckDefinition } from '../definition.js';
import { column, name, severity, table } from '../fields.js';

const schema = builtOnce(() =>
  z.strictObject({
    type: z.literal('accepted_values'),
    name,
    severity,
    table,
    column,
    values: z.array(z.union([z.string(), z.number(), z.boolean()])).min(1),
  }),
);

export const acceptedValuesCheck: CheckDefinition<'accepted_values'> = {
  type: 'accepted_values',
  description: 'every non-NULL value of the column is one of values',
  get schema() {
    return schema();
  },
  references: (c) => ({ ...tableOnly(c.table), columns: [{ column: c.column, path: ['column'] }] }),
  evaluate: (c, env) =>
    env.read(async (t) => {
      const cols = await t.columnsOrThrow(c.table, [c.column]);
      const where = `${t.quote(c.column)} IS NOT NULL AND ${t.quote(c.column)} NOT IN (${c.values.map((_, i) => t.tx.ph(i + 2)).join(', ')})`;
      const { n, keys } = await t.failing(c.table, cols, where, c.values as Param[]);
      return {
        status: n === 0 ? 'pass' : 'fail',
        observed: `${n} row${n === 1 ? '' : 's'} with other values`,
        observedValue: n,
        threshold: `one of ${c.values.map(String).join(', ')}`,
        failingKeys: n > 0 ? keys : null,
        message:
          n === 0
            ? `${c.column} takes accepted values only`
            : `${n} rows of ${c.table} have a ${c.column} not in (${c.values.map(String).join(', ')})`,
      };
    }),
};
