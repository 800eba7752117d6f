// The bounded read-only `sql:` check on DuckDB: a transaction that is always rolled back, interrupted at the timeout,
// that reads only this database's own tables.
// DuckDB's functions read any file the process can (read_text, read_csv, glob, a file name as a table) and ATTACH
// opens other databases. `SET enable_external_access = false` would stop that, but only for the whole instance and
// for good, and the same instance writes Parquet and CSV exports later (COPY TO). So the query must be one statement
// (a second one would run outside the wrapper: ATTACH, COPY, COMMIT), and its bound plan (EXPLAIN, which binds and
// plans without running) may scan only tables of this database and call no table function but a few that make
// rows out of their arguments: views and table macros are expanded in the plan, so a view over read_text is caught
// as well as read_text itself.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DuckDatabase } from '../contract.js';

/** Table functions that read nothing: they make rows from their arguments. */
const PURE_TABLE_FUNCTIONS = new Set(['RANGE', 'GENERATE_SERIES', 'UNNEST', 'UNNEST_TABLE_FUNCTION']);

interface PlanNode {
  name?: string;
  children?: PlanNode[];
  extra_info?: Record<string, unknown>;
}

/** Why the query may not run (undefined: it reads only this database). */
async function outsideReads(conn: DuckDBConnection, query: string): Promise<string | undefined> {
  const statements = await conn.extractStatements(query);
  if (statements.count !== 1) return 'a sql: check is one SELECT statement; a second statement after it is not run';
  const catalog = String((await conn.runAndReadAll('SELECT current_database() AS c')).getRowObjectsJS()[0]?.['c']);
  const explained = (await conn.runAndReadAll(`EXPLAIN (FORMAT JSON) ${query}`)).getRowObjectsJS();
  const plan = JSON.parse(String(explained[0]?.['explain_value'] ?? '[]')) as PlanNode[];
  const problems: string[] = [];
  const walk = (n: PlanNode): void => {
    const fn = n.extra_info?.['Function'];
    if (typeof fn === 'string' && !PURE_TABLE_FUNCTIONS.has(fn.toUpperCase()))
      problems.push(`the table function ${fn.toLowerCase()}()`);
    const table = n.extra_info?.['Table'];
    if (typeof table === 'string' && !table.startsWith(`${catalog}.`))
      problems.push(`the table ${table} of another database`);
    for (const c of n.children ?? []) walk(c);
  };
  for (const n of plan) walk(n);
  if (problems.length === 0) return undefined;
  return `a sql: check reads only this database's tables; this one uses ${[...new Set(problems)].join(', ')}, which may read files or other databases`;
}

export async function readOnlyQuery(
  db: DuckDatabase,
  query: string,
  o: { timeoutMs: number },
): Promise<{ rows: Array<Record<string, unknown>> }> {
  return db.session(async (conn) => {
    await conn.run('BEGIN TRANSACTION');
    const timer = setTimeout(() => conn.interrupt(), o.timeoutMs);
    try {
      const refused = await outsideReads(conn, query);
      if (refused !== undefined) throw new Error(`refused: ${refused}`);
      const reader = await conn.runAndReadAll(query);
      return { rows: reader.getRowObjectsJS() as Array<Record<string, unknown>> };
    } catch (err) {
      throw new Error(
        (err as Error).message.includes('INTERRUPT')
          ? `the query ran longer than ${o.timeoutMs} ms and was stopped`
          : (err as Error).message,
      );
    } finally {
      clearTimeout(timer);
      await conn.run('ROLLBACK').catch(() => {});
    }
  });
}
