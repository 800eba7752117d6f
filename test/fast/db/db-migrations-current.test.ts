// Each engine's migrations are derived from the one table definition (db/model/schema/definition.ts): SQLite's and
// Postgres's are drizzle-kit migrations beside their adapters (destinations/<engine>/migrations/, npm run
// db:generate). This fails, in the fast tier, when the definition changed and an engine's migration was not
// generated: drizzle-kit, asked to compare the last committed snapshot with the tables built from the definition now,
// must find nothing to generate. A changed definition (a column added) is shown to be caught for both engines.
import fs from 'node:fs';
import path from 'node:path';
import {
  generateDrizzleJson,
  generateMigration,
  generateSQLiteDrizzleJson,
  generateSQLiteMigration,
} from 'drizzle-kit/api';
import { describe, expect, it } from 'vitest';
import { pgTableFrom, sqliteTableFrom } from '../../../db/model/schema/build.js';
import { TABLES, type AnyTableDef } from '../../../db/model/schema/definition.js';
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
