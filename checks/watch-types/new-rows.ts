// new_rows: rows of a table whose key the watch has not seen; the first evaluation of a watch counts only the rows
// this run loaded, not the table's older rows.
import { z } from 'zod';
import { builtOnce } from '../../lib/built-once.js';
import type { Param } from '../../db/store/sql.js';
import type { WatchDefinition } from '../definition.js';
import { table, watchBase } from '../fields.js';
import { plainRow } from '../values.js';

const schema = builtOnce(() => z.strictObject({ type: z.literal('new_rows'), ...watchBase, table }));

export const newRowsWatch: WatchDefinition<'new_rows'> = {
  type: 'new_rows',
  description: 'rows of a table whose key the watch has not seen before',
  filterTable: (w) => w.table,
  get schema() {
    return schema();
  },
  async rows(w, env) {
    const { tx } = env;
    const cols = await env.columns(w.table);
    if (cols.size === 0) return [];
    const key = env.rowKey(w.table, cols);
    const params: Param[] = [env.pipeline];
    const where = env.filterSql(w.filter, 't', cols, params);
    const before = await env.readState(w.name);
    // The first evaluation: rows older than this run are the baseline, not news.
    const first = before.size === 0;
    const runLoads = first
      ? await tx.all(`SELECT id FROM raw_responses WHERE workflow_id = ${tx.ph(1)}`, [env.workflowId])
      : [];
    const ofRun = new Set(runLoads.map((r) => String(r['id'])));
    const rows = await tx.all(
      `SELECT t.* FROM ${env.quote(w.table)} t WHERE t.pipeline = ${tx.ph(1)}${where} ORDER BY ${key.map((k) => `t.${env.quote(k)}`).join(', ')}`,
      params,
    );
    const changes = new Map<string, string>();
    const out: Array<Record<string, unknown>> = [];
    for (const r of rows) {
      const k = JSON.stringify(key.map((c) => String(r[c])));
      if (before.has(k)) continue;
      changes.set(k, 'seen');
      if (first && !ofRun.has(String(r['load_id']))) continue;
      const { row_hash: _h, ...rest } = r;
      out.push(plainRow(rest));
    }
    await env.writeState(w.name, changes);
    return out;
  },
};
