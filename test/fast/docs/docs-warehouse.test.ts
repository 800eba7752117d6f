// docs/warehouse.md says what the code defines: every table of the model with its natural key and parent
// (db/model/schema/definition.ts, db/model/schema/descriptions.ts), every state pipeline_runs.status can hold
// (lib/run-states.ts), and the three models of examples/dbt as it prints them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TABLES, type AnyTableDef } from '../../../db/model/schema/definition.js';
import { TABLE_DOCS, type TableDoc } from '../../../db/model/schema/descriptions.js';
import { ALERT_STATUSES, RECORDED_EXPORT_STATUSES, RECORDED_RUN_STATES } from '../../../lib/run-states.js';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const doc = fs.readFileSync(path.join(root, 'docs', 'warehouse.md'), 'utf8');
const cells = (line: string) =>
  line
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

describe('docs/warehouse.md', () => {
  it('lists every table with its natural key and parent', () => {
    const rows = new Map(
      doc
        .split('\n')
        .filter((l) => /^\| `[a-z_]+` \|/.test(l))
        .map((l) => [names(cells(l)[0]!)[0]!, cells(l)]),
    );
    for (const [table, def] of Object.entries(TABLES as unknown as Record<string, AnyTableDef>)) {
      const row = rows.get(table);
      expect(row, table).toBeDefined();
      const identity = Object.entries(def.columns).find(([, c]) => c.identity)?.[0];
      const key = [...(def.primaryKey ?? (identity ? [identity] : []))];
      // The key is the cell's leading names (an aside in parentheses may name a unique column too).
      expect(names(row![1]!.replace(/\(.*\)/, '')), table).toEqual(key);
      const parents = ((TABLE_DOCS as unknown as Record<string, TableDoc>)[table]!.relations ?? []).map(
        (r) => r.parent,
      );
      expect(
        names(row![2]!).filter((n) => n in TABLES),
        table,
      ).toEqual(parents);
    }
  });

  it('says what every recorded run state, export and alert status means', () => {
    const states = doc
      .split('\n')
      .filter((l) => /^\| `[a-z_]+` \| (has|loaded|finished|failed|was|its|not)/.test(l))
      .map((l) => names(cells(l)[0]!)[0]);
    expect(states).toEqual([...RECORDED_RUN_STATES]);
    for (const s of [...RECORDED_EXPORT_STATUSES, ...ALERT_STATUSES]) expect(doc).toContain(`\`${s}\``);
  });

  it("prints the examples' models as examples/dbt holds them (the parts it shows)", () => {
    const model = (name: string) =>
      fs.readFileSync(path.join(root, 'examples', 'dbt', 'models', `${name}.sql`), 'utf8');
    expect(model('leads_deduplicated')).toContain(
      'row_number() over (partition by result_id order by own desc) as pick',
    );
    expect(doc).toContain('row_number() over (partition by result_id order by own desc) as pick');
    expect(model('current_model_prices')).toContain('order by h.id desc');
    expect(model('daily_price_changes')).toContain('as price_before_major');
  });
});
