// freshness: the newest row of a table (by `column`, default loaded_at), or without a table the pipeline's last
// successful run, is no older than max_age. `up` evaluates it for scheduled pipelines between runs too.
import { z } from 'zod';
import { builtOnce } from '../../lib/built-once.js';
import { parseDurationMs } from '../../pipelines/duration.js';
import { tableOnly, type CheckDefinition } from '../definition.js';
import { column, duration, name, severity, table } from '../fields.js';
import { formatAge, toDate } from '../values.js';

const schema = builtOnce(() =>
  z.strictObject({
    type: z.literal('freshness'),
    name,
    severity,
    table: table.optional().describe('without a table: the last successful run'),
    column: column.optional().describe('time column of the table; default loaded_at'),
    max_age: duration,
  }),
);

export const freshnessCheck: CheckDefinition<'freshness'> = {
  type: 'freshness',
  description: "the newest row of a table, or the pipeline's last successful run, is no older than max_age",
  get schema() {
    return schema();
  },
  references: (c) => ({
    ...tableOnly(c.table),
    columns: c.column !== undefined ? [{ column: c.column, path: ['column'] }] : [],
  }),
  async evaluate(c, env) {
    // Evaluated after a run's load, "the last successful run" is this one: what it guards is runs that stop.
    if (c.table === undefined && env.rowsLoaded)
      return {
        status: 'pass',
        observed: 'this run',
        observedValue: 0,
        threshold: `<= ${c.max_age}`,
        message: 'the pipeline is running now',
      };
    const limitMs = parseDurationMs(c.max_age);
    const newest = await env.read(async ({ tx, quote, columnsOrThrow }) => {
      if (c.table === undefined) {
        const [r] = await tx.all(
          `SELECT max(finished_at) AS t FROM pipeline_runs WHERE pipeline = ${tx.ph(1)} AND status = 'succeeded'`,
          [env.pipeline],
        );
        return toDate(r?.['t']);
      }
      const col = c.column ?? 'loaded_at';
      await columnsOrThrow(c.table, [col]);
      const [r] = await tx.all(`SELECT max(${quote(col)}) AS t FROM ${quote(c.table)} WHERE pipeline = ${tx.ph(1)}`, [
        env.pipeline,
      ]);
      return toDate(r?.['t']);
    });
    const what = c.table === undefined ? 'the last successful run' : `the newest row of ${c.table}`;
    if (!newest)
      return { status: 'fail', observed: 'never', threshold: `<= ${c.max_age}`, message: `${what}: none yet` };
    const age = env.now.getTime() - newest.getTime();
    const ok = age <= limitMs;
    return {
      status: ok ? 'pass' : 'fail',
      observed: `${formatAge(age)} old (${newest.toISOString()})`,
      observedValue: Math.round(age / 1000),
      threshold: `<= ${c.max_age}`,
      message: `${what} is ${formatAge(age)} old${ok ? '' : `, older than ${c.max_age}`}`,
    };
  },
};
