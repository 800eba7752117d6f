// unique: no value of the columns (together) occurs in more than one of the pipeline's rows.
import { z } from 'zod';
import { builtOnce } from '../../lib/built-once.js';
import { tableOnly, type CheckDefinition } from '../definition.js';
import { column, name, severity, table } from '../fields.js';
import { num, plainRow } from '../values.js';

const schema = builtOnce(() =>
  z.strictObject({ type: z.literal('unique'), name, severity, table, columns: z.array(column).min(1) }),
);

export const uniqueCheck: CheckDefinition<'unique'> = {
  type: 'unique',
  description: 'no value of the columns (together) occurs in more than one row',
  get schema() {
    return schema();
  },
  references: (c) => ({
    ...tableOnly(c.table),
    columns: c.columns.map((column, j) => ({ column, path: ['columns', j] })),
  }),
  evaluate: (c, env) =>
    env.read(async ({ tx, quote, columnsOrThrow }) => {
      await columnsOrThrow(c.table, c.columns);
      const list = c.columns.map(quote).join(', ');
      const t = quote(c.table);
      const [dup] = await tx.all(
        `SELECT count(*) AS n FROM (SELECT ${list} FROM ${t} WHERE pipeline = ${tx.ph(1)} GROUP BY ${list} HAVING count(*) > 1) AS d`,
        [env.pipeline],
      );
      const n = num(dup?.['n']);
      const sample =
        n > 0
          ? await tx.all(
              `SELECT ${list}, count(*) AS copies FROM ${t} WHERE pipeline = ${tx.ph(1)} GROUP BY ${list} HAVING count(*) > 1 ORDER BY ${list} LIMIT ${env.sampleSize}`,
              [env.pipeline],
            )
          : [];
      return {
        status: n === 0 ? 'pass' : 'fail',
        observed: `${n} duplicated value${n === 1 ? '' : 's'}`,
        observedValue: n,
        threshold: '0',
        failingKeys: n > 0 ? sample.map(plainRow) : null,
        message:
          n === 0
            ? `${c.columns.join(', ')} unique`
            : `${n} values of (${c.columns.join(', ')}) occur more than once in ${c.table}`,
      };
    }),
};
