// docs/warehouse.md says what the code defines: every table of the model with its natural key and parent
// (db/model/schema/definition.ts, db/model/schema/descriptions.ts), every state pipeline_runs.status can hold
// (lib/run-states.ts), and the three models of examples/dbt as it prints them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TABLES, type AnyTableDef } from '../../../db/model/schema/definition.js';
import { TABLE_DOCS, type TableDoc } from '../../../db/model/schema/descriptions.js';
import {
  ALERT_STATUSES,
  RECORDED_EXPORT_STATUSES,
  RECORDED_RUN_STATES,
  RUN_STATE_REASONS,
} from '../../../lib/run-states.js';

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

  it('says why a run ended so: every status_reason of the code, in its table', () => {
    const reasons = doc
      .split('\n')
      .filter((l) => /^\| `[a-z_]+` \| a `budget:`|^\| `[a-z_]+` \| [a-z]/.test(l))
      .map((l) => names(cells(l)[0]!)[0]!)
      .filter((n) => !(RECORDED_RUN_STATES as readonly string[]).includes(n) && !(n in TABLES));
    expect(reasons).toEqual(Object.keys(RUN_STATE_REASONS));
  });

  it('says what every other status column holds, as the descriptions and their accepted values define it', () => {
    // The statuses of the service's objects (scraping_runs, run_records, *_results): the docs' list and the
    // column's description name the values the catalog (schema export's accepted_values) holds, and no other.
    const section = doc.slice(doc.indexOf("The service's statuses"), doc.indexOf('## What a run changes'));
    const described = Object.entries(TABLE_DOCS as unknown as Record<string, TableDoc>).filter(
      ([table, d]) => table !== 'pipeline_runs' && table !== 'check_results' && d.acceptedValues?.['status'],
    );
    expect(described.map(([t]) => t).sort()).toEqual(
      ['leads_results', 'pdf_results', 'run_records', 'scraper_results', 'scraping_runs'].sort(),
    );
    for (const [table, d] of described) {
      const values = d.acceptedValues!['status']!.values;
      const line = section.split('\n- ').find((l) => l.includes(`\`${table}.status\``));
      expect(line, table).toBeDefined();
      // The values it names: the words in backticks that are not a table's or a column's name.
      const columns = new Set(
        Object.values(TABLES as unknown as Record<string, AnyTableDef>).flatMap((t) => Object.keys(t.columns)),
      );
      const said = names(line!).filter((n) => /^[a-z]+$/.test(n) && !columns.has(n));
      expect(said, table).toEqual([...values]);
      for (const v of values) expect(d.columns['status'], `${table}.status`).toContain(`'${v}'`);
    }
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
