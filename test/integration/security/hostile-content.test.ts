// Hostile result content (issue 30) on all three destinations, through the loader the workflow's activities call
// (loadBatch, with the raw body parsed by the client's parser exactly as a fetched page is): keys that normalise
// alike, system column names, non-Latin and emoji keys, long keys and long pipeline names, colliding list keys,
// numbers no SQL type holds, timestamps with offsets, thousands of fields, one result nested 300 deep and one
// without its merge key beside valid siblings, and two pipeline names that give one table name. Every load must
// succeed, every input leaf must be found again in what the destination holds (read with an independent reader:
// Python's sqlite3, psql, and DuckDB's own SQL), and `schema show` must map each original key to its column.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { isLosslessNumber } from 'lossless-json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../../lib/json.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { contentTableName } from '../../../db/model/evolve/names.js';
import { PermanentLoadError } from '../../../db/model/evolve/errors.js';
import { loadBatch } from '../../../db/store/load.js';
import { resultsPage } from '../../support/results-page.js';
import { rebuildContentTables } from '../../../db/store/rebuild.js';
import { isPermanentDatabaseError } from '../../../db/store/permanent-errors.js';
import { withTransaction } from '../../../db/store/sql.js';
import { ApplicationFailure } from '@temporalio/common';
import { asActivityFailure } from '../../../activities/failures.js';
import { runCli } from '../../support/cli.js';
import { duckSelect } from '../../support/duckdb.js';
import { testDatabaseUrl } from '../../support/destinations.js';

const exec = promisify(execFile);
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-content-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// ---- crafted content, as JSON text (1e400 and -0.0 must reach the parser as written) -------------------------

const key70 = (tail: string) =>
  `${'a_very_long_key_that_shares_its_first_sixty_bytes_with_another_'}${tail}`.padEnd(70, 'x');
const NAMES_RECORD: Record<string, unknown> = {
  'a b': 1,
  a_b: 2,
  A_B: 3,
  'a-b': 4,
  aB: 5,
  'a.b': 6,
  a__b: 7,
  'A b': 8,
  ' a b ': 9,
  名前: '山田',
  住所: '東京',
  '🚀': 'rocket',
  '🔥🔥': 'fire',
  مرحبا: 'hello',
  Émile: 'e1',
  emile: 'e2',
  한국어: 'ko',
  ctid: 'c',
  xmin: 'x1',
  xmax: 'x2',
  cmin: 'c1',
  cmax: 'c2',
  tableoid: 't',
  oid: 'o',
  rowid: 'r',
  _rowid_: 'r2',
  pipeline: 'not ours',
  row_key: 'nor this',
  load_id: 'nor that',
  value: 'v',
  '': 'empty',
  '!!!': 'bang',
  [key70('one')]: 'long 1',
  [key70('two')]: 'long 2',
  deep: {
    [`${'level_one_with_a_long_name_'.repeat(3)}`]: {
      [`${'level_two_with_a_long_name_'.repeat(3)}`]: { leaf_alpha_with_a_long_name: 1, leaf_beta_with_a_long_name: 2 },
    },
  },
};

const LISTS_RECORD = {
  tags: ['a', 'b'],
  Tags: ['C', 'D'],
  x: [{ k: 1 }, { k: 2 }],
  x_pipeline_root_key_idx: [{ k: 3 }],
  mixed: [1, 'two', { value: 'obj', n: 3 }, [4, 5]],
  nested: [{ inner: [{ deep_list_item: 'z' }] }],
};

function resultJson(id: number, contentJson: string, runId = 700): string {
  return `{"id":${id},"scraper_id":1,"scraping_run_id":${runId},"scraper_name":"hostile","scraped_url":"https://x.example/${id}","status":"succeeded","content":${contentJson},"created_at":"2026-01-01T00:00:00.000000Z","updated_at":"2026-01-01T00:00:00.000000Z"}`;
}

interface Crafted {
  pipeline: string;
  /** Pages, each a list of [result id, content JSON text]. */
  pages: Array<Array<[number, string]>>;
  mergeKey?: string[];
  /** Result ids expected in rejected_results. */
  rejected?: number[];
}

const deep300 = `${'{"d":'.repeat(300)}1${'}'.repeat(300)}`;
const manyFields = (from: number, n: number, value: (i: number) => string) =>
  `{${Array.from({ length: n }, (_, i) => `"field_${String(from + i).padStart(5, '0')}":${value(from + i)}`).join(',')}}`;

const CASES: Crafted[] = [
  {
    pipeline: 'names',
    pages: [[[1, JSON.stringify(NAMES_RECORD)]], [[2, JSON.stringify({ ...NAMES_RECORD, 'a  b': 10, A_b: 11 })]]],
  },
  {
    pipeline: 'lists',
    pages: [
      [
        [1, JSON.stringify(LISTS_RECORD)],
        [2, JSON.stringify({ Tags: ['E'], tags: ['f'] })],
      ],
    ],
  },
  {
    pipeline: 'a-pipeline-name-of-forty-seven-or-more-characters-with-lists',
    pages: [
      [
        [
          1,
          JSON.stringify({
            social_profiles_of_the_lead: [{ platform: 'x', handle: 'h' }],
            tags_with_a_long_name_too: ['t1'],
          }),
        ],
      ],
    ],
  },
  {
    pipeline: 'numbers',
    pages: [
      [
        [
          1,
          '{"n":1.5,"big":18446744073709551616,"e19":1e19,"max":1.79e308,"huge":1e400,"tiny":1e-400,"negzero":-0.0,"int64max":9223372036854775807,"int64min":-9223372036854775808}',
        ],
      ],
      [
        [
          2,
          '{"n":9007199254740993,"big":1,"e19":10000000000000000000,"max":2,"huge":3,"negzero":0.5,"int64max":9223372036854775808}',
        ],
      ],
      // A new column seen with a safe integer and one a double cannot hold, in one batch: no widening to double.
      [
        [3, '{"w":1}'],
        [4, '{"w":9007199254740993}'],
        [5, '{"w":2.5}'],
      ],
    ],
  },
  {
    pipeline: 'times',
    pages: [
      [
        [
          1,
          '{"t":"2024-01-02T03:04:05Z","short":"2024-01-02T03:04Z","offset":"2024-01-02T03:04:05+02:00","micro":"2024-01-02T03:04:05.123456Z","mixed":"2024-01-02T03:04:05Z"}',
        ],
        [
          2,
          '{"t":"2024-06-30T23:59:59.5Z","short":"2024-01-02T03:04Z","offset":"2024-01-02T03:04:05-05:30","micro":"2024-01-02T03:04:05.000001Z","mixed":"2024-01-02T03:04:05+01:00"}',
        ],
      ],
    ],
  },
  // 2,500 distinct fields over five results, then 1,500 integer fields in one result.
  {
    pipeline: 'wide',
    pages: [
      Array.from({ length: 5 }, (_, r) => [r + 1, manyFields(r * 500, 500, (i) => `"v${i}"`)] as [number, string]),
    ],
  },
  { pipeline: 'ints', pages: [[[1, manyFields(0, 1500, (i) => String(i * 1_000_003))]]] },
  {
    pipeline: 'deep',
    pages: [
      [
        [1, '{"ok":1}'],
        [2, `{"ok":2,"bad":${deep300}}`],
        [3, '{"ok":3,"list":[{"a":1}]}'],
      ],
    ],
    rejected: [2],
  },
  {
    pipeline: 'merge',
    mergeKey: ['email'],
    pages: [
      [
        [1, '{"email":"a@x","n":1}'],
        [2, '{"mail":"b@x","n":2}'],
        [3, '{"email":"c@x","n":3}'],
        [4, '{"email":{"no":"scalar"},"n":4}'],
      ],
    ],
    rejected: [2, 4],
  },
];

async function loadPage(db: Database, pipeline: string, page: Array<[number, string]>, mergeKey?: string[]) {
  const raw = `{"data":[${page.map(([id, c]) => resultJson(id, c)).join(',')}]}`;
  return loadBatch(
    db,
    resultsPage({
      pipeline,
      raw,
      table: contentTableName(pipeline),
      resultTable: 'scraper_results',
      requestKey: `page-${page[0]![0]}`,
      mergeKey,
      workflowId: `wf-${pipeline}`,
    }),
  );
}

// ---- the independent readers -----------------------------------------------------------------------------

type Rows = Array<Record<string, unknown>>;

const PY_DUMP = `
import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
out = {}
for t in json.loads(sys.argv[2]):
    cur = con.execute('SELECT * FROM "%s"' % t.replace('"', '""'))
    names = [d[0] for d in cur.description]
    out[t] = [dict(zip(names, r)) for r in cur.fetchall()]
sys.stdout.write(json.dumps(out))
`;

/** Every row of `tables`, read by Python's sqlite3, psql or DuckDB SQL, numbers exact (lossless JSON). */
async function readTables(db: Database, url: string, tables: readonly string[]): Promise<Record<string, Rows>> {
  if (db.dialect === 'sqlite') {
    const { stdout } = await exec('python3', ['-c', PY_DUMP, url.slice('sqlite:'.length), JSON.stringify(tables)], {
      maxBuffer: 512 * 1024 * 1024,
    });
    return parseJson(stdout) as Record<string, Rows>;
  }
  if (db.dialect === 'postgres') {
    const out: Record<string, Rows> = {};
    for (const t of tables) {
      const q = `SELECT coalesce(json_agg(x), '[]') FROM "${t.replace(/"/g, '""')}" x`;
      const { stdout } = await exec('psql', [url, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', q], {
        maxBuffer: 512 * 1024 * 1024,
      });
      out[t] = parseJson(stdout) as Rows;
    }
    return out;
  }
  const out: Record<string, Rows> = {};
  for (const t of tables) out[t] = await duckSelect(db, `SELECT * FROM "${t.replace(/"/g, '""')}"`);
  return out;
}

async function historyOf(db: Database, url: string, root: string): Promise<Rows> {
  const rows = (await readTables(db, url, ['schema_history']))['schema_history']!;
  return rows.filter((r) => r['root_table'] === root || r['table_name'] === root);
}

// ---- what the input holds, walked independently of flatten/content.ts ------------------------------------------

interface Leaf {
  /** JSON list paths from the root (the table's source key). */
  tableSource: string;
  rowKey: string;
  path: string[];
  value: unknown;
}

function leavesOf(content: unknown, rowKey: string): Leaf[] {
  const out: Leaf[] = [];
  const obj = (o: Record<string, unknown>, lists: string[][], rk: string, path: string[]) => {
    for (const [k, v] of Object.entries(o)) {
      const at = [...path, k];
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && !isLosslessNumber(v))
        obj(v as Record<string, unknown>, lists, rk, at);
      else if (Array.isArray(v)) list(v, [...lists, at], rk);
      else out.push({ tableSource: JSON.stringify(lists), rowKey: rk, path: at, value: v });
    }
  };
  const list = (items: unknown[], lists: string[][], parent: string) => {
    items.forEach((el, i) => {
      const rk = `${parent}#${i}`;
      if (el !== null && typeof el === 'object' && !Array.isArray(el) && !isLosslessNumber(el))
        obj(el as Record<string, unknown>, lists, rk, []);
      else out.push({ tableSource: JSON.stringify(lists), rowKey: rk, path: [], value: el });
    });
  };
  obj(content as Record<string, unknown>, [], rowKey, []);
  return out;
}

/** One text form for a number, whichever type carried it: exact decimal, `-0` kept. */
function numberText(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (isLosslessNumber(v))
    return Number.isFinite(Number(v.value)) && Number(v.value) !== 0 ? String(Number(v.value)) : v.value;
  return String(v);
}

function sameValue(type: string, stored: unknown, input: unknown): boolean {
  switch (type) {
    case 'bool':
      return Boolean(typeof stored === 'bigint' ? Number(stored) : stored) === input;
    case 'bigint':
    case 'double':
      return numberText(stored) === numberText(input);
    case 'number_text':
      return String(stored) === numberText(input) || String(stored) === (isLosslessNumber(input) ? input.value : '');
    case 'timestamp': {
      const ms = (v: unknown) =>
        v instanceof Date
          ? v.getTime()
          : typeof v === 'object' && v !== null
            ? Date.parse(String(v))
            : Date.parse(String(v).replace(' ', 'T'));
      return ms(stored) === ms(input);
    }
    case 'json':
      return stringifyJson(typeof stored === 'string' ? parseJson(stored) : stored) === stringifyJson(input);
    default:
      return stored === input;
  }
}

function at(v: unknown, path: readonly string[]): unknown {
  let x = v;
  for (const k of path) {
    if (x === null || typeof x !== 'object') return undefined;
    x = (x as Record<string, unknown>)[k];
  }
  return x;
}

/** Finds every non-null input leaf in the stored rows: its column, a variant of it, or the overflow JSON. */
function expectNoValueLost(history: Rows, tables: Record<string, Rows>, leaves: Leaf[]): void {
  const tableOf = new Map<string, string>();
  const columns = new Map<string, Array<{ column: string; type: string; source: unknown }>>();
  for (const h of history) {
    const t = String(h['table_name']);
    if (h['change'] === 'create_table') {
      if (h['source_key'] !== null) tableOf.set(String(h['source_key']), t);
      continue;
    }
    const list = columns.get(t) ?? [];
    list.push({
      column: String(h['column_name']),
      type: String(h['data_type']),
      source: JSON.parse(String(h['source_key'])),
    });
    columns.set(t, list);
  }
  const lost: string[] = [];
  for (const leaf of leaves) {
    if (leaf.value === null) continue;
    const table = tableOf.get(leaf.tableSource);
    const row = table === undefined ? undefined : tables[table]?.find((r) => String(r['row_key']) === leaf.rowKey);
    const where = `${leaf.tableSource} ${leaf.rowKey} ${JSON.stringify(leaf.path)} = ${stringifyJson(leaf.value)}`;
    if (!row) {
      lost.push(`${where}: no row (table ${table})`);
      continue;
    }
    const cols = columns.get(table!) ?? [];
    const path = JSON.stringify(leaf.path);
    const candidates = cols.filter(
      (c) =>
        JSON.stringify(c.source) === path || JSON.stringify((c.source as { variant_of?: unknown }).variant_of) === path,
    );
    let found = candidates.some(
      (c) => row[c.column] !== null && row[c.column] !== undefined && sameValue(c.type, row[c.column], leaf.value),
    );
    const overflow = cols.find((c) => (c.source as { overflow?: boolean }).overflow === true);
    if (!found && overflow && row[overflow.column] != null) {
      const doc =
        typeof row[overflow.column] === 'string' ? parseJson(row[overflow.column] as string) : row[overflow.column];
      const v = at(doc, leaf.path.length === 0 ? [] : leaf.path);
      found =
        v !== undefined && (numberText(v) === numberText(leaf.value) || stringifyJson(v) === stringifyJson(leaf.value));
    }
    if (!found)
      lost.push(
        `${where}: stored ${candidates.map((c) => `${c.column}(${c.type})=${stringifyJson(row[c.column] ?? null)}`).join(', ') || 'no column'}`,
      );
  }
  expect(lost, lost.slice(0, 20).join('\n')).toEqual([]);
}

function contentOf(json: string): unknown {
  return parseJson(json);
}

describe.each(['sqlite', 'postgres', 'duckdb'] as const)('hostile content into %s', (dialect) => {
  let db: Database;
  let url: string;
  beforeAll(async () => {
    url = await testDatabaseUrl(dialect, tmp, `hostile-${dialect}`);
    db = await openDatabase(url);
  });
  afterAll(async () => db?.close());

  it.each(CASES.map((c) => [c.pipeline, c] as const))(
    '%s: every load succeeds, rejected results are quarantined, no value is lost',
    async (_name, c) => {
      for (const page of c.pages) {
        const out = await loadPage(db, c.pipeline, page, c.mergeKey);
        expect(out.loadId).toBeGreaterThan(0);
      }
      const root = contentTableName(c.pipeline);
      const history = await historyOf(db, url, root);
      const tables = [...new Set(history.map((h) => String(h['table_name'])))];
      const stored = await readTables(db, url, [...tables, 'rejected_results']);
      // Every result not rejected: its leaves, the last page that carried each key winning.
      const rejected = new Set(c.rejected ?? []);
      const byKey = new Map<string, unknown>();
      for (const page of c.pages) {
        for (const [id, json] of page) {
          if (rejected.has(id)) continue;
          const content = contentOf(json) as Record<string, unknown>;
          const key = c.mergeKey ? JSON.stringify(c.mergeKey.map((k) => content[k])) : String(id);
          byKey.set(key, content);
        }
      }
      expect(stored[root]!.length).toBe(byKey.size);
      expectNoValueLost(
        history,
        stored,
        [...byKey].flatMap(([key, content]) => leavesOf(content, key)),
      );
      const quarantined = stored['rejected_results']!.filter((r) => r['pipeline'] === c.pipeline);
      expect(quarantined.map((r) => Number(r['result_id'])).sort()).toEqual([...rejected].sort());
      for (const r of quarantined) {
        expect(String(r['reason'])).toMatch(/nested deeper than \d+ levels|merge_key path 'email'/);
        expect(r['table_name']).toBe(root);
        expect(r['workflow_id']).toBe(`wf-${c.pipeline}`);
      }
      // No two keys share a column, and no column name is longer than the destination takes.
      const cols = history.filter((h) => h['change'] !== 'create_table');
      const perTable = new Map<string, Set<string>>();
      for (const h of cols) {
        const set = perTable.get(String(h['table_name'])) ?? new Set<string>();
        expect(set.has(String(h['source_key'])), `source ${String(h['source_key'])} twice`).toBe(false);
        set.add(String(h['source_key']));
        perTable.set(String(h['table_name']), set);
      }
      if (dialect === 'postgres')
        for (const h of history) expect(Buffer.byteLength(String(h['column_name']))).toBeLessThanOrEqual(63);
    },
    300_000,
  );

  it('the 33-key record: one column per key, system names avoided, `schema show` maps each original key to its column', async () => {
    const show = await runCli(['schema', 'show', 'names', '--database', url, '--json']);
    expect(show.code, show.stderr).toBe(0);
    const shown = JSON.parse(show.stdout) as {
      tables: Array<{ table: string; columns: Array<{ column: string; key: unknown }> }>;
    };
    const root = shown.tables.find((t) => t.table === 'names_items')!;
    const byKey = new Map(
      root.columns.filter((c) => Array.isArray(c.key)).map((c) => [JSON.stringify(c.key), c.column]),
    );
    const keys = [...Object.keys(NAMES_RECORD).filter((k) => k !== 'deep'), 'a  b', 'A_b'];
    for (const k of keys) expect(byKey.has(JSON.stringify([k])), `key ${JSON.stringify(k)}`).toBe(true);
    expect(new Set(keys.map((k) => byKey.get(JSON.stringify([k])))).size).toBe(keys.length);
    // Readable names: unicode kept, emoji spelled, system and bookkeeping names prefixed.
    expect(byKey.get('["名前"]')).toBe('名前');
    expect(byKey.get('["🚀"]')).toBe('u1f680');
    // The key spelled as its name keeps it; the others that normalise alike get `__2`, `__3`, … .
    expect(byKey.get('["a_b"]')).toBe('a_b');
    expect(byKey.get('["a b"]')).toMatch(/^a_b__\d+$/);
    // The destination's own system names (its capability) and the loader's bookkeeping columns are never taken.
    const system = {
      postgres: ['ctid', 'xmin', 'xmax', 'cmin', 'cmax', 'tableoid', 'oid'],
      sqlite: ['rowid', 'oid'],
      duckdb: ['rowid'],
    }[dialect];
    for (const k of [...system, 'pipeline', 'row_key', 'load_id'])
      expect(byKey.get(`["${k}"]`), k).toMatch(new RegExp(`^_${k}(__\\d+)?$`));
    for (const c of byKey.values()) expect([...system, 'pipeline', 'row_key', 'load_id', '_rowid_']).not.toContain(c);
    // The text form shows the original key beside its column.
    const text = await runCli(['schema', 'show', 'names', '--database', url]);
    expect(text.stdout).toMatch(/u1f680 .*key "🚀"/);
    // Run again: the same keys map to the same columns (decided from schema_history, not from arrival order).
    await loadPage(db, 'names', [[3, JSON.stringify(Object.fromEntries(Object.entries(NAMES_RECORD).reverse()))]]);
    const again = JSON.parse(
      (await runCli(['schema', 'show', 'names', '--database', url, '--json'])).stdout,
    ) as typeof shown;
    expect(again.tables.find((t) => t.table === 'names_items')!.columns.length).toBe(root.columns.length);
  }, 120_000);

  it('two pipeline names that give one table name: the second is refused without writing, and rebuild touches only its own rows', async () => {
    await loadPage(db, 'crm-leads', [[1, '{"email":"a@x"}']]);
    const before = (await readTables(db, url, ['crm_leads_items']))['crm_leads_items']!;
    const err = await loadPage(db, 'crm_leads', [[2, '{"email":"b@x"}']]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentLoadError);
    expect((err as Error).message).toMatch(
      /pipeline 'crm_leads' would write its content into table 'crm_leads_items', which pipeline 'crm-leads' created.*Rename one/,
    );
    const refused = await rebuildContentTables(db, 'crm_leads', { table: 'crm_leads_items', mode: 'evolve' }).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(PermanentLoadError);
    expect((await readTables(db, url, ['crm_leads_items']))['crm_leads_items']).toEqual(before);
    // Its own rebuild still works and gives the same rows.
    const rebuilt = await rebuildContentTables(db, 'crm-leads', { table: 'crm_leads_items', mode: 'evolve' });
    expect(rebuilt.results).toBe(1);
    expect((await readTables(db, url, ['crm_leads_items']))['crm_leads_items']!.map((r) => r['email'])).toEqual([
      'a@x',
    ]);
  }, 120_000);

  it('tables and columns recorded before source keys keep their names: the first key whose name they are takes them over', async () => {
    await loadPage(db, 'legacy', [[1, '{"a":1,"pipeline":"p","tags":["t"]}']]);
    const names = async () =>
      (await historyOf(db, url, 'legacy_items'))
        .map((h) => `${String(h['table_name'])}.${String(h['column_name'])}`)
        .sort();
    const before = await names();
    // As an older version left them: no source keys, no root table.
    await withTransaction(db, (tx) =>
      tx.run(
        `UPDATE schema_history SET source_key = NULL, root_table = NULL WHERE substr(table_name, 1, 12) = 'legacy_items'`,
        [],
      ),
    );
    await loadPage(db, 'legacy', [[2, '{"A":2,"a":3,"pipeline":"q","tags":["u"],"Tags":["V"]}']]);
    const after = await names();
    expect(after).toEqual(
      [...before, 'legacy_items.a__2', ...after.filter((n) => n.startsWith('legacy_items__tags__2.'))].sort(),
    );
    const history = await historyOf(db, url, 'legacy_items');
    const sourceOf = (t: string, c: string) =>
      history.find((h) => h['table_name'] === t && h['column_name'] === c)?.['source_key'];
    // The key spelled exactly as a recorded name takes it (`a`, `tags`); `A` and `Tags` get `__2` (recorded, so
    // every later load decides alike).
    expect(sourceOf('legacy_items', 'a')).toBe('["a"]');
    expect(sourceOf('legacy_items', 'a__2')).toBe('["A"]');
    expect(sourceOf('legacy_items', '_pipeline')).toBe('["pipeline"]');
    expect(sourceOf('legacy_items__tags', 'row_key')).toBe('[["tags"]]');
    expect(sourceOf('legacy_items__tags__2', 'row_key')).toBe('[["Tags"]]');
    const rows = (await readTables(db, url, ['legacy_items']))['legacy_items']!;
    expect(
      rows
        .map((r) => [
          String(r['row_key']),
          numberText(r['a']),
          r['a__2'] == null ? null : numberText(r['a__2']),
          r['_pipeline'],
        ])
        .sort(),
    ).toEqual([
      ['1', '1', null, 'p'],
      ['2', '3', '2', 'q'],
    ]);
  });

  it('database errors no retry can fix are non-retryable failures; others stay retryable', async () => {
    const refused = async (sql: string) =>
      withTransaction(db, async (tx): Promise<unknown> =>
        sql.startsWith('SELECT') ? tx.all(sql, []) : tx.run(sql, []),
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
    const permanent = [
      await refused(`INSERT INTO schema_history (table_name) VALUES ('x')`),
      await refused(
        dialect === 'sqlite' ? `SELECT no_such_column FROM schema_history` : `SELECT CAST('abc' AS INTEGER)`,
      ),
    ];
    for (const err of permanent) {
      expect(err, String(err)).toBeInstanceOf(Error);
      expect(isPermanentDatabaseError(err), String(err)).toBe(true);
      const failure = asActivityFailure(err);
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect((failure as ApplicationFailure).nonRetryable).toBe(true);
      expect((failure as ApplicationFailure).message).toMatch(/^the destination refused the load: /);
    }
    const transient = Object.assign(new Error('could not serialize access due to concurrent update'), {
      code: '40001',
      severity: 'ERROR',
    });
    expect(isPermanentDatabaseError(transient)).toBe(false);
    expect(isPermanentDatabaseError(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))).toBe(
      false,
    );
    expect(isPermanentDatabaseError(new Error('IO Error: could not write'))).toBe(false);
  });
});

describe('validate', () => {
  it('refuses a second pipeline whose name gives the same table name in the same destination, naming both files', async () => {
    const url = `sqlite:${path.join(tmp, 'validate.sqlite')}`;
    await (await openDatabase(url)).close();
    const file = (name: string) => {
      const f = path.join(tmp, `${name}.yaml`);
      fs.writeFileSync(
        f,
        `name: ${name}\nkind: leads-search-engine\nrequest: { search_type: keywords, keywords: solar installers, limit_pages: 1 }\ndestination: { database: "${url}" }\n`,
      );
      return f;
    };
    const a = file('crm-leads');
    const b = file('crm_leads');
    const other = file('crm-leads-two');
    const out = await runCli(['validate', '--offline', a, b, other]);
    expect(out.code).toBe(2);
    expect(out.stdout).toContain(`OK ${a}`);
    expect(out.stdout).toContain(`OK ${other}`);
    expect(out.stderr).toContain(
      `${b}:1:7: name: pipeline name 'crm_leads' gives the table name 'crm_leads_items', as 'crm-leads' (${a}) does in the same destination; their rows would share one table. Rename one of them`,
    );
  }, 60_000);
});

describe('DuckDB files made before issue 30', () => {
  it('are brought up to date on open: schema_history gains source_key and root_table, rejected_results is created', async () => {
    const url = `duckdb:${path.join(tmp, 'old.duckdb')}`;
    // A file as the previous version left it: schema version 1, without the new columns and table.
    const fresh = await openDatabase(url);
    for (const sql of [
      'DROP TABLE rejected_results',
      'DROP SEQUENCE rejected_results_id_seq',
      'DROP INDEX schema_history_root_table_idx',
      'ALTER TABLE schema_history DROP COLUMN root_table',
      'ALTER TABLE schema_history DROP COLUMN source_key',
      'DELETE FROM scrape_etl_duckdb_schema',
      'INSERT INTO scrape_etl_duckdb_schema VALUES (1, now())',
    ])
      await duckSelect(fresh, sql);
    await fresh.close();
    const db = await openDatabase(url);
    try {
      const cols = (
        await duckSelect(db, `SELECT column_name FROM information_schema.columns WHERE table_name = 'schema_history'`)
      ).map((r) => String(r['column_name']));
      expect(cols).toEqual(expect.arrayContaining(['source_key', 'root_table']));
      // Every step after 1 runs on a version-1 file (2 alerts, 3 hostile content, 4 checks, 5 unread indexes dropped, …).
      const { DUCKDB_SCHEMA_VERSION } = await import('../../../destinations/duckdb/ddl.js');
      expect(DUCKDB_SCHEMA_VERSION).toBeGreaterThanOrEqual(5);
      expect(
        (await duckSelect(db, `SELECT version FROM scrape_etl_duckdb_schema ORDER BY version`)).map((r) =>
          Number(r['version']),
        ),
      ).toEqual(Array.from({ length: DUCKDB_SCHEMA_VERSION }, (_, i) => i + 1));
      await loadPage(db, 'upgraded', [
        [1, '{"ok":1}'],
        [2, `{"bad":${deep300}}`],
      ]);
      expect((await duckSelect(db, `SELECT result_id FROM rejected_results`)).map((r) => r['result_id'])).toEqual([
        '2',
      ]);
    } finally {
      await db.close();
    }
  }, 60_000);
});
