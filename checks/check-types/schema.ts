// schema: the columns exist in the destination, each with its logical type (int, double, text, bool, json,
// timestamp) or `any`.
import { z } from 'zod';
import { builtOnce } from '../../lib/built-once.js';
import { tableOnly, type CheckDefinition } from '../definition.js';
import { LOGICAL_TYPES, name, severity, table } from '../fields.js';

const schema = builtOnce(() =>
  z.strictObject({
    type: z.literal('schema'),
    name,
    severity,
    table,
    columns: z.record(z.string(), z.enum(LOGICAL_TYPES)),
  }),
);

export const schemaCheck: CheckDefinition<'schema'> = {
  type: 'schema',
  description: 'the columns exist, each with its logical type or any',
  get schema() {
    return schema();
  },
  references: (c) => tableOnly(c.table),
  evaluate: (c, env) =>
    env.read(async (t) => {
      const cols = await t.columns(c.table);
      if (cols.size === 0)
        return {
          status: 'fail',
          observed: 'no such table',
          threshold: JSON.stringify(c.columns),
          message: `table '${c.table}' does not exist in the destination`,
        };
      const problems: string[] = [];
      for (const [col, want] of Object.entries(c.columns)) {
        const got = cols.get(col);
        if (got === undefined) problems.push(`${col} is missing`);
        else if (want !== 'any' && got !== want) problems.push(`${col} is ${got}, expected ${want}`);
      }
      return {
        status: problems.length === 0 ? 'pass' : 'fail',
        observed: problems.length === 0 ? 'as expected' : problems.join('; '),
        observedValue: problems.length,
        threshold: Object.entries(c.columns)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', '),
        message: problems.length === 0 ? `${c.table} has every expected column` : `${c.table}: ${problems.join('; ')}`,
      };
    }),
};
