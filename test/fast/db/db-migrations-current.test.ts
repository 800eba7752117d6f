// Each engine's migrations are derived from the one table definition (db/model/schema/definition.ts): SQLite's and
// Postgres's are drizzle-kit migrations beside their adapters (destinations/<engine>/migrations/, npm run
// db:generate). This fails, in the fast tier, when the definition changed and an engine's migration was not
// generated: drizzle-kit, asked to compare the last committed snapshot with the tables built from the definition now,
// must find nothing to generate. DuckDB's schema is the definition's baseline plus hand-written steps for older files
// (destinations/duckdb/ddl.ts): its last snapshot (destinations/duckdb/schema-snapshots/, npm run db:generate) must be
// the baseline now, and the steps must bring a file of each snapshotted version to what a new file gets, in DuckDB
// itself. A changed definition (a column added) is shown to be caught for every engine, and a DuckDB step missing.
import fs from 'node:fs';
import path from 'node:path';
import {
  generateDrizzleJson,
  generateMigration,
  generateSQLiteDrizzleJson,
  generateSQLiteMigration,
} from 'drizzle-kit/api';
import { describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { pgTableFrom, sqliteTableFrom } from '../../../db/model/schema/build.js';
import { TABLES, type AnyTableDef } from '../../../db/model/schema/definition.js';
import { compareSchemas } from '../../../db/model/schema/parity.js';
import {
  baselineDdl,
  DUCKDB_SCHEMA_STEPS,
  DUCKDB_SCHEMA_VERSION,
  stepsAfter,
} from '../../../destinations/duckdb/ddl.js';
import { duckdbDatabaseShapes } from '../../../destinations/duckdb/schema-shapes.js';
import { readSnapshots, type DuckdbSchemaSnapshot } from '../../../destinations/duckdb/schema-snapshot.js';
import * as pgSchema from '../../../destinations/postgres/schema.js';
import * as sqliteSchema from '../../../destinations/sqlite/schema.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');
/** Each drizzle-kit engine's migrations, beside its adapter. */
const MIGRATIONS = { sqlite: 'destinations/sqlite/migrations', postgres: 'destinations/postgres/migrations' } as const;

function lastSnapshot(engine: keyof typeof MIGRATIONS): unknown {
  const meta = path.join(ROOT, MIGRATIONS[engine], 'meta');
  const journal = JSON.parse(fs.readFileSync(path.join(meta, '_journal.json'), 'utf8')) as {
    entries: Array<{ idx: number; tag: string }>;
  };
  const last = journal.entries.at(-1);
  expect(last, `${MIGRATIONS[engine]}/meta/_journal.json has entries`).toBeDefined();
  // Every journal entry has its SQL file: a migration listed but not committed would fail at open.
  for (const e of journal.entries)
    expect(fs.existsSync(path.join(ROOT, MIGRATIONS[engine], `${e.tag}.sql`)), `${e.tag}.sql`).toBe(true);
  return JSON.parse(fs.readFileSync(path.join(meta, `${String(last!.idx).padStart(4, '0')}_snapshot.json`), 'utf8'));
}

/** The definition with one more nullable text column on `pipeline_runs`: a change that needs a migration. */
const CHANGED: AnyTableDef = {
  ...TABLES.pipeline_runs,
  columns: { ...TABLES.pipeline_runs.columns, added_for_the_test: { type: 'text' } },
};

describe('each engine has the migration of the current definition', () => {
  it('SQLite: drizzle-kit finds nothing to generate from the definition, and finds the change of a changed one', async () => {
    const snapshot = lastSnapshot('sqlite');
    expect(
      await generateSQLiteMigration(snapshot as never, await generateSQLiteDrizzleJson({ ...sqliteSchema })),
    ).toEqual([]);
    const changed = await generateSQLiteMigration(
      snapshot as never,
      await generateSQLiteDrizzleJson({ ...sqliteSchema, pipeline_runs: sqliteTableFrom('pipeline_runs', CHANGED) }),
    );
    expect(changed.join('\n')).toMatch(/ALTER TABLE `pipeline_runs` ADD `added_for_the_test` text/);
  });

  it('Postgres: drizzle-kit finds nothing to generate from the definition, and finds the change of a changed one', async () => {
    const snapshot = lastSnapshot('postgres');
    expect(await generateMigration(snapshot as never, generateDrizzleJson({ ...pgSchema }))).toEqual([]);
    const changed = await generateMigration(
      snapshot as never,
      generateDrizzleJson({ ...pgSchema, pipeline_runs: pgTableFrom('pipeline_runs', CHANGED) }),
    );
    expect(changed.join('\n')).toMatch(/ALTER TABLE "pipeline_runs" ADD COLUMN "added_for_the_test" text/);
  });
});

type DuckdbSteps = Parameters<typeof stepsAfter>[1];

/**
 * A DuckDB database in memory after `ddl` and then `steps` (each given the read-only query a step may ask what the
 * file holds with, as ensureSchema gives it): its tables' shapes, its views and every comment on a table, view or
 * column.
 */
async function duckdbSchemaOf(ddl: readonly string[], steps: NonNullable<DuckdbSteps> = []) {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    for (const sql of ddl) await conn.run(sql);
    const query = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS();
    for (const step of steps) for (const sql of await step.sql(query)) await conn.run(sql);
    const read = async (sql: string) =>
      (await conn.runAndReadAll(sql)).getRowObjectsJS().map((r) => Object.values(r).join(' '));
    return {
      shapes: await duckdbDatabaseShapes(conn),
      views: await read(`SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main' ORDER BY 1`),
      comments: [
        ...(await read(`SELECT table_name, comment FROM duckdb_tables() WHERE comment IS NOT NULL ORDER BY 1`)),
        ...(await read(
          `SELECT view_name, comment FROM duckdb_views() WHERE NOT internal AND comment IS NOT NULL ORDER BY 1`,
        )),
        ...(await read(
          `SELECT table_name, column_name, comment FROM duckdb_columns() WHERE comment IS NOT NULL ORDER BY 1, 2`,
        )),
      ],
    };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** What a file of snapshot `from`, brought up by `steps`, lacks or has beyond a new file of `tables`' baseline. */
async function upgradeDiffs(
  from: DuckdbSchemaSnapshot,
  steps: DuckdbSteps,
  tables: Readonly<Record<string, AnyTableDef>> = TABLES,
): Promise<string[]> {
  const upgraded = await duckdbSchemaOf(from.ddl, stepsAfter(from.version, steps));
  const fresh = await duckdbSchemaOf(baselineDdl(tables));
  const missing = (what: string, a: string[], b: string[]) => [
    ...a.filter((x) => !b.includes(x)).map((x) => `${what} only on a new file: ${x}`),
    ...b.filter((x) => !a.includes(x)).map((x) => `${what} only on the upgraded file: ${x}`),
  ];
  return [
    ...compareSchemas(fresh.shapes, upgraded.shapes),
    ...missing('view', fresh.views, upgraded.views),
    ...missing('comment', fresh.comments, upgraded.comments),
  ];
}

describe('DuckDB: a step for every change of the definition', () => {
  const snapshots = readSnapshots();
  const last = snapshots.at(-1)!;

  it('the last snapshot is the baseline of the current schema version, derived from the definition now; a changed definition is not', () => {
    expect(last.version).toBe(DUCKDB_SCHEMA_VERSION);
    expect(
      baselineDdl(),
      `the table definition (or a description) changed since DuckDB schema version ${last.version}: add a step to DUCKDB_SCHEMA_STEPS that brings a version-${last.version} file to it, bump DUCKDB_SCHEMA_VERSION (destinations/duckdb/ddl.ts) and run npm run db:generate`,
    ).toEqual(last.ddl);
    expect(baselineDdl({ ...TABLES, pipeline_runs: CHANGED })).not.toEqual(last.ddl);
  });

  it('the steps bring a file of each snapshotted version to what a new file of the next one gets', async () => {
    expect(snapshots.length).toBeGreaterThanOrEqual(2);
    for (const [i, next] of snapshots.entries()) {
      const prev = snapshots[i - 1];
      if (!prev) continue;
      const steps = DUCKDB_SCHEMA_STEPS.filter((s) => s.version <= next.version);
      const upgraded = await duckdbSchemaOf(prev.ddl, stepsAfter(prev.version, steps));
      const fresh = await duckdbSchemaOf(next.ddl);
      expect({ from: prev.version, diffs: compareSchemas(fresh.shapes, upgraded.shapes) }).toEqual({
        from: prev.version,
        diffs: [],
      });
      expect({ from: prev.version, views: upgraded.views, comments: upgraded.comments.length }).toEqual({
        from: prev.version,
        views: fresh.views,
        comments: fresh.comments.length,
      });
      // A step writes today's descriptions (the model holds one text per column), and a step that changes them writes
      // them all again: the text of an older snapshot's comments is not what an upgrade passes through, only their
      // number; the text is held for the last version, below and in the check after the loop.
      if (next === last) expect(upgraded.comments).toEqual(fresh.comments);
    }
    // The last version's file is what a new file of the definition now gets.
    expect(await upgradeDiffs(snapshots.at(-2)!, DUCKDB_SCHEMA_STEPS)).toEqual([]);
  });

  it('a definition changed without a step leaves files of the last version behind, which the check names; with the step it passes', async () => {
    const changed = { ...TABLES, pipeline_runs: CHANGED };
    const without = await upgradeDiffs(last, DUCKDB_SCHEMA_STEPS, changed);
    expect(without.join('\n')).toMatch(/pipeline_runs.*added_for_the_test/);
    const step = {
      version: DUCKDB_SCHEMA_VERSION + 1,
      sql: () => ['ALTER TABLE pipeline_runs ADD COLUMN IF NOT EXISTS added_for_the_test text'],
    };
    expect(await upgradeDiffs(last, [...DUCKDB_SCHEMA_STEPS, step], changed)).toEqual([]);
  });
});
