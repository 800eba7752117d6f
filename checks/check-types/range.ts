// range: every row of the pipeline satisfies the expression (checks/expression.ts), e.g. `price_major > 0`.
import { z } from 'zod';
import { builtOnce } from '../../lib/built-once.js';
import type { Param } from '../../db/store/sql.js';
import { tableOnly, type CheckDefinition } from '../definition.js';
import { columnsOf, parseExpression, toSql } from '../expression.js';
import { expression, name, severity, table } from '../fields.js';

const schema = builtOnce(() =>
  z.strictObject({
    type: z.literal('range'),
    name,
    severity,
    table,
    expression: expression.describe("every row must satisfy it, e.g. 'price_major > 0'"),
  }),
);

export const rangeCheck: CheckDefinition<'range'> = {
  type: 'range',
  description: "every row satisfies the expression, e.g. 'price_major > 0'",
  get schema() {
    return schema();
  },
  references: (c) => ({ ...tableOnly(c.table), expressions: [{ text: c.expression, path: ['expression'] }] }),
  evaluate: (c, env) =>
    env.read(async (t) => {
      const expr = parseExpression(c.expression);
      const cols = await t.columnsOrThrow(c.table, columnsOf(expr));
      const params: Param[] = [];
      const cond = toSql(expr, t.quote, (v) => {
        params.push(v);
        return t.tx.ph(params.length + 1);
      });
      // NULL where the expression needs a value is a failure: "every row satisfies" means true, not unknown.
      const { n, keys } = await t.failing(c.table, cols, `(${cond}) IS NOT TRUE`, params);
      const total = await t.totalRows(c.table);
      return {
        status: n === 0 ? 'pass' : 'fail',
        observed: `${n} of ${total} rows outside`,
        observedValue: n,
        threshold: c.expression,
        failingKeys: n > 0 ? keys : null,
        message:
          n === 0
            ? `every row satisfies ${c.expression}`
            : `${n} of ${total} rows of ${c.table} do not satisfy ${c.expression}`,
      };
    }),
};
