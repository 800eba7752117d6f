// sql: a read-only query of the pipeline file (run bounded, checks/sql-readonly.ts) that must return no rows.
import { z } from 'zod';
import { builtOnce } from '../../lib/built-once.js';
import { tableOnly, type CheckDefinition } from '../definition.js';
import { name, nonEmpty, severity } from '../fields.js';
import { plainRow } from '../values.js';

const schema = builtOnce(() =>
  z.strictObject({
    type: z.literal('sql'),
    name,
    severity,
    sql: nonEmpty.describe('a read-only query that must return no rows'),
  }),
);

export const sqlCheck: CheckDefinition<'sql'> = {
  type: 'sql',
  description: 'a read-only query that must return no rows',
  get schema() {
    return schema();
  },
  references: () => tableOnly(undefined),
  async evaluate(c, env) {
    const rows = await env.readOnlyQuery(c.sql, env.sampleSize + 1);
    const n = rows.length;
    const shown = n > env.sampleSize ? `more than ${env.sampleSize} rows` : `${n} row${n === 1 ? '' : 's'}`;
    return {
      status: n === 0 ? 'pass' : 'fail',
      observed: shown,
      observedValue: n,
      threshold: '0 rows',
      failingKeys: n > 0 ? rows.slice(0, env.sampleSize).map(plainRow) : null,
      message: n === 0 ? 'the query returned no rows' : `the query returned ${shown}`,
    };
  },
};
