// `npm run db:generate`'s DuckDB part: records the baseline DDL of the current DuckDB schema version
// (ddl.ts) in schema-snapshots/<version>.json beside it, as drizzle-kit records a
// snapshot per migration for SQLite and Postgres. A version's snapshot is never rewritten: a changed definition needs
// a new version and a step that brings files of the last one to it, which the fast tier checks against the snapshot
// of the version before (test/fast/db/db-migrations-current.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baselineDdl, DUCKDB_SCHEMA_VERSION } from './ddl.js';

export const SNAPSHOT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'schema-snapshots');

export interface DuckdbSchemaSnapshot {
  version: number;
  ddl: string[];
}

export function snapshotFile(version: number): string {
  return path.join(SNAPSHOT_DIR, `${String(version).padStart(4, '0')}.json`);
}

/** The snapshots committed, by version ascending. */
export function readSnapshots(): DuckdbSchemaSnapshot[] {
  return fs
    .readdirSync(SNAPSHOT_DIR)
    .filter((f) => /^\d{4}\.json$/.test(f))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(SNAPSHOT_DIR, f), 'utf8')) as DuckdbSchemaSnapshot);
}

function main(): void {
  const file = snapshotFile(DUCKDB_SCHEMA_VERSION);
  const text = `${JSON.stringify({ version: DUCKDB_SCHEMA_VERSION, ddl: baselineDdl() }, null, 2)}\n`;
  if (fs.existsSync(file)) {
    if (fs.readFileSync(file, 'utf8') === text) return;
    throw new Error(
      `${path.relative(process.cwd(), file)} records DuckDB schema version ${DUCKDB_SCHEMA_VERSION} as it was: the definition changed since. Bump DUCKDB_SCHEMA_VERSION and add a step to DUCKDB_SCHEMA_STEPS (destinations/duckdb/ddl.ts) that brings a version-${DUCKDB_SCHEMA_VERSION} file to it, then run this again`,
    );
  }
  fs.writeFileSync(file, text);
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
