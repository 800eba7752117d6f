// What is particular to a DuckDB destination, on real files and real processes: its generated schema matches the
// definition and a database the Postgres migrations built; a process killed mid-load leaves nothing of its batch
// (and its lock file is taken over); one process at a time holds the file, and the others wait with a message,
// whether the holder is scrape-etl (our lock file) or another program (DuckDB's own lock).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../../lib/json.js';
import { marketplaceResponseSchema } from '../../../client/schemas.js';
import { DatabaseConfigError, openDatabase, probeDatabase, type DuckDatabase } from '../../../destinations/open.js';
import { duckdbDatabaseShapes } from '../../../destinations/duckdb/schema-shapes.js';
import { lockPathOf, setWaitReporter } from '../../../destinations/duckdb/file-lock.js';
import { loadBatch } from '../../../db/store/load.js';
import { compareSchemas, definitionShape, pgDatabaseShapes } from '../../../db/model/schema/parity.js';
import { POSTGRES_COLUMN_TYPES } from '../../../destinations/postgres/column-types.js';
import { TABLE_NAMES, TABLES } from '../../../db/model/schema/definition.js';
import { DATA_TABLES } from '../../../db/model/tables.js';
import { countRows, dumpTable } from '../../support/db-dump.js';
import { pgPool } from '../../support/duckdb.js';
import { REAL_FIXTURES, REPO_ROOT } from '../../support/fixtures.js';
import { testPostgresUrl } from '../../support/postgres.js';

const FIXTURE = path.join(REAL_FIXTURES, 'shopee-sync-response-1.json');
const RAW = fs.readFileSync(FIXTURE, 'utf8');
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'db-duckdb-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const batch = (pipeline: string) => ({
  pipeline,
  kind: 'marketplace' as const,
  endpoint: 'POST /api/marketplace/sync',
  requestKey: 'u',
  raw: RAW,
  data: marketplaceResponseSchema.parse(parseJson(RAW)),
});

/**
 * A node process working on the file: `load` loads the real example into `pipeline`; `crash` does the same but
 * SIGKILLs itself once the product models are written (mid-transaction); `hold` keeps a session open for `ms`;
 * `foreign` opens the file with DuckDB directly, without our lock, for `ms` (as the duckdb CLI would).
 */
function child(
  mode: 'load' | 'crash' | 'hold' | 'foreign',
  url: string,
  arg: string,
): {
  started: Promise<void>;
  done: Promise<{ code: number | null; signal: string | null; out: string }>;
  output: () => string;
} {
  const root = (p: string) => JSON.stringify(path.join(REPO_ROOT, p));
  const script = `import fs from 'node:fs';
import { openDatabase } from ${root('destinations/open.ts')};
import { loadBatch } from ${root('db/store/load.ts')};
import { parseJson } from ${root('lib/json.ts')};
import { marketplaceResponseSchema } from ${root('client/schemas.ts')};
const [url, mode, arg, fixture] = process.argv.slice(1);
const raw = fs.readFileSync(fixture, 'utf8');
const batch = (pipeline, extra = {}) => ({ pipeline, kind: 'marketplace', endpoint: 'POST /api/marketplace/sync', requestKey: 'u', raw, data: marketplaceResponseSchema.parse(parseJson(raw)), ...extra });
if (mode === 'foreign') {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const inst = await DuckDBInstance.create(url.slice('duckdb:'.length));
  process.stdout.write('started\\n');
  await new Promise((r) => setTimeout(r, Number(arg)));
  inst.closeSync();
} else {
  const db = await openDatabase(url);
  // hold: for arg ms, or (arg not a number) until the file arg exists, at most 60 s.
  const hold = async () => {
    if (!Number.isNaN(Number(arg))) return new Promise((r) => setTimeout(r, Number(arg)));
    for (let t = 0; t < 1200 && !fs.existsSync(arg); t++) await new Promise((r) => setTimeout(r, 50));
  };
  if (mode === 'hold') await db.session(async () => { process.stdout.write('started\\n'); await hold(); });
  process.stdout.write('started\\n');
  if (mode === 'load') await loadBatch(db, batch(arg));
  if (mode === 'crash') await loadBatch(db, batch(arg, { onTableWritten: (t) => { if (t === 'marketplace_product_models') process.kill(process.pid, 'SIGKILL'); } }));
}`;
  const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, url, mode, arg, FIXTURE], {
    cwd: REPO_ROOT,
  });
  let out = '';
  let onStart!: () => void;
  const started = new Promise<void>((r) => (onStart = r));
  p.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('started')) onStart();
  });
  p.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) =>
    p.on('close', (code, signal) => resolve({ code, signal, out })),
  );
  void done.then(() => onStart());
  return { started, done, output: () => out };
}

describe('DuckDB destination', () => {
  it('a fresh file has exactly the tables, columns, types, keys and indexes of the definition and of a migrated Postgres database', async () => {
    const duck = (await openDatabase(`duckdb:${path.join(tmp, 'parity.duckdb')}`)) as DuckDatabase;
    const pg = await openDatabase(await testPostgresUrl());
    try {
      const duckShapes = await duck.session((c) => duckdbDatabaseShapes(c));
      // DuckDB reads an ART index only for a filter on one column, so the file has the model's unique indexes and
      // its one-column ones, and not its non-unique indexes of several columns (db/duckdb/ddl.ts duckdbBuildsIndex).
      const readable = <T extends { indexes: ReadonlyArray<{ unique: boolean; columns: readonly string[] }> }>(
        t: T,
      ): T => ({
        ...t,
        indexes: t.indexes.filter((i) => i.unique || i.columns.length === 1),
      });
      const expected = TABLE_NAMES.map((t) => readable(definitionShape(t, TABLES[t])));
      expect(compareSchemas(expected, duckShapes)).toEqual([]);
      // Postgres keeps drizzle's bookkeeping in its own schema, so `public` holds exactly the model's tables.
      const pgShapes = (await pgDatabaseShapes(pgPool(pg), POSTGRES_COLUMN_TYPES)).map(readable);
      expect(compareSchemas(pgShapes, duckShapes)).toEqual([]);
      const indexesOf = (t: string) => duckShapes.find((s) => s.name === t)!.indexes.map((i) => i.name);
      expect(indexesOf('marketplace_products')).toEqual([]);
      expect(indexesOf('raw_responses')).toEqual(['raw_responses_body_sha256_idx']);
      expect(indexesOf('rejected_results')).toEqual([
        'rejected_results_load_result_uq',
        'rejected_results_pipeline_idx',
        'rejected_results_workflow_idx',
      ]);
      expect(duckShapes.map((t) => t.name)).toEqual(pgShapes.map((t) => t.name));
      // The file's own words, so the comparison is seen to read real types and keys.
      const products = duckShapes.find((t) => t.name === 'marketplace_products')!;
      expect(products.primaryKey).toEqual(['pipeline', 'shop_id', 'item_id']);
      expect(
        ['shop_id', 'price_major', 'is_adult', 'loaded_at'].map(
          (n) => products.columns.find((c) => c.name === n)?.sqlType,
        ),
      ).toEqual(['bigint', 'double precision', 'boolean', 'timestamp with time zone']);
      expect(duckShapes.find((t) => t.name === 'raw_responses')!.columns.find((c) => c.name === 'id')).toMatchObject({
        identity: true,
        notNull: true,
      });
    } finally {
      await duck.close();
      await pg.close();
    }
  }, 60_000);

  it('a file that is not a DuckDB database is named as such by the probe, and opening it is a configuration error (no retry)', async () => {
    const file = path.join(tmp, 'notes.duckdb');
    fs.writeFileSync(file, 'some notes, not a database');
    await expect(probeDatabase(`duckdb:${file}`)).rejects.toThrow(`${file} is not a DuckDB database`);
    const err = await openDatabase(`duckdb:${file}`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseConfigError);
    expect((err as Error).message).toMatch(/not a valid DuckDB database file/);
    // A path that does not exist yet is fine: the probe creates nothing, the open creates the file.
    const fresh = path.join(tmp, 'sub', 'fresh.duckdb');
    await probeDatabase(`duckdb:${fresh}`);
    expect(fs.existsSync(fresh)).toBe(false);
  });

  it('a process killed mid-load leaves nothing of its batch; its lock file is taken over and the batch then loads', async () => {
    const url = `duckdb:${path.join(tmp, 'crash.duckdb')}`;
    const db = await openDatabase(url);
    await loadBatch(db, batch('before'));
    const rawBefore = await countRows(db, 'raw_responses');
    const r = await child('crash', url, 'crashed').done;
    expect(r.signal, r.out).toBe('SIGKILL');
    // The killed process held the lock: its file is still there, naming a pid that no longer runs.
    expect(JSON.parse(fs.readFileSync(lockPathOf(path.join(tmp, 'crash.duckdb')), 'utf8'))).toMatchObject({
      host: os.hostname(),
    });
    expect(await countRows(db, 'raw_responses')).toBe(rawBefore);
    for (const t of DATA_TABLES)
      expect({ t, rows: (await dumpTable(db, t)).filter((x) => x['pipeline'] === 'crashed') }).toEqual({ t, rows: [] });
    const again = await loadBatch(db, batch('crashed'));
    expect(again.changedByTable.marketplace_product_models).toBeGreaterThan(0);
    const strip = (rows: Array<Record<string, unknown>>) =>
      rows.map(({ pipeline: _p, load_id: _l, loaded_at: _a, ...rest }) => rest);
    for (const t of DATA_TABLES) {
      const rows = await dumpTable(db, t);
      expect({ t, rows: strip(rows.filter((x) => x['pipeline'] === 'crashed')) }).toEqual({
        t,
        rows: strip(rows.filter((x) => x['pipeline'] === 'before')),
      });
    }
    await db.close();
  }, 60_000);

  it('two processes loading into one file at once: both finish with complete rows, and the waiting one says why', async () => {
    const file = path.join(tmp, 'shared.duckdb');
    const url = `duckdb:${file}`;
    const db = await openDatabase(url);
    const messages: string[] = [];
    const previous = setWaitReporter((m) => messages.push(m));
    try {
      // The holder keeps the file until both loaders have said they wait (a fixed hold was shorter than a child's
      // start on a busy machine since the merge grew the imports: the child then found the file free). If one never
      // waits, the holder gives up after 60 s and the assertions below fail.
      const release = path.join(tmp, 'release-hold');
      const holder = child('hold', url, release);
      await holder.started;
      const other = child('load', url, 'from-child');
      const here = loadBatch(db, batch('from-parent'));
      const text = `waiting for ${file}: another scrape-etl process (pid`;
      for (let t = 0; t < 1000 && !(messages.some((m) => m.startsWith(text)) && other.output().includes(text)); t++)
        await new Promise((r) => setTimeout(r, 50));
      fs.writeFileSync(release, '');
      const [h, o] = await Promise.all([holder.done, other.done, here]);
      expect(h.code, h.out).toBe(0);
      expect(o.code, o.out).toBe(0);
      expect(
        messages.some(
          (m) =>
            m.startsWith(text) && m.endsWith('DuckDB allows one process per file, so loads into it run one at a time'),
        ),
      ).toBe(true);
      expect(o.out).toContain(text);
      const products = await dumpTable(db, 'marketplace_products');
      expect(products.filter((p) => p['pipeline'] === 'from-child')).toHaveLength(1);
      expect(products.filter((p) => p['pipeline'] === 'from-parent')).toHaveLength(1);
      const models = await dumpTable(db, 'marketplace_product_models');
      expect(models.filter((m) => m['pipeline'] === 'from-child').length).toBe(
        models.filter((m) => m['pipeline'] === 'from-parent').length,
      );
      // Every process released the file: the children on exit, this one on close.
      await db.close();
      expect(fs.existsSync(lockPathOf(file))).toBe(false);
    } finally {
      setWaitReporter(previous);
      await db.close();
    }
  }, 60_000);

  it("another program holding the file (DuckDB's own lock, not ours): a load waits for it and then runs", async () => {
    const file = path.join(tmp, 'foreign.duckdb');
    const db = await openDatabase(`duckdb:${file}`);
    const messages: string[] = [];
    const previous = setWaitReporter((m) => messages.push(m));
    try {
      const foreign = child('foreign', `duckdb:${file}`, '1500');
      await foreign.started;
      const res = await loadBatch(db, batch('after-foreign'));
      expect(res.changedByTable.marketplace_products).toBe(1);
      expect((await foreign.done).code).toBe(0);
      // The holder named as the system sees it (issue #41): command line, pid and since when, not scrape-etl.
      expect(
        messages.some(
          (m) =>
            m.startsWith(`waiting for ${file}: `) &&
            /node\S* .*\(pid \d+, running since \d{4}-\d\d-\d\dT[\d:]+Z\), another program \(not scrape-etl\), is using it/.test(
              m,
            ),
        ),
        messages.join('\n'),
      ).toBe(true);
    } finally {
      setWaitReporter(previous);
      await db.close();
    }
  }, 60_000);
});
