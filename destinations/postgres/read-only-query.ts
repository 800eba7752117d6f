// The bounded read-only `sql:` check on Postgres: a transaction with SET TRANSACTION READ ONLY and a local
// statement_timeout, always rolled back, that reads only the destination's tables.
// - One statement: the query is sent with the extended protocol, which the server runs as one statement only (the
//   simple protocol would run `...; COMMIT; ...` after the wrapper, outside the read-only transaction).
// - No files of the server: pg_read_file, pg_read_binary_file, pg_ls_dir, lo_import and COPY to or from a file are
//   denied by Postgres itself to an ordinary user. A destination user that may use them (a superuser, a member of
//   pg_read_server_files or pg_execute_server_program, or one granted EXECUTE on those functions) runs the check
//   as the role scrape_etl_check_reader instead (SET LOCAL ROLE), which has SELECT on the tables of the schemas in
//   its search path and nothing else; the destination user creates it on the first such check (a superuser or a
//   CREATEROLE user can). A privileged user that cannot make it gets the check refused with what to do.
import type { PoolClient } from 'pg';
import type { PostgresDatabase } from '../contract.js';

export const CHECK_READER_ROLE = 'scrape_etl_check_reader';

/** What lets the session's current role read the server's files (empty: nothing). */
async function fileRights(client: PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ sup: boolean; rsf: boolean; esp: boolean; fns: string | null }>(
    `SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS sup,
            pg_has_role(current_user, 'pg_read_server_files', 'USAGE') AS rsf,
            pg_has_role(current_user, 'pg_execute_server_program', 'USAGE') AS esp,
            (SELECT string_agg(f, ', ') FROM unnest(ARRAY['pg_read_file(text)', 'pg_read_binary_file(text)', 'pg_ls_dir(text)', 'lo_import(text)']) AS f
              WHERE has_function_privilege(current_user, f, 'EXECUTE')) AS fns`,
  );
  const r = rows[0]!;
  return [
    ...(r.sup ? ['superuser'] : []),
    ...(r.rsf ? ['member of pg_read_server_files'] : []),
    ...(r.esp ? ['member of pg_execute_server_program'] : []),
    ...(r.fns ? [`may execute ${r.fns}`] : []),
  ];
}

/** Creates the reader role when missing and grants it SELECT on the tables it may read now (own transaction). */
async function prepareReader(client: PoolClient, user: string, rights: string[]): Promise<void> {
  try {
    await client.query('BEGIN');
    const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [CHECK_READER_ROLE]);
    if (exists.rowCount === 0) await client.query(`CREATE ROLE ${CHECK_READER_ROLE} NOLOGIN NOSUPERUSER NOINHERIT`);
    if (!rights.includes('superuser')) await client.query(`GRANT ${CHECK_READER_ROLE} TO CURRENT_USER`);
    const { rows } = await client.query<{ s: string }>('SELECT unnest(current_schemas(false)) AS s');
    for (const { s } of rows) {
      const schema = `"${s.replace(/"/g, '""')}"`;
      await client.query(`GRANT USAGE ON SCHEMA ${schema} TO ${CHECK_READER_ROLE}`);
      await client.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${CHECK_READER_ROLE}`);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw new Error(
      `refused: the destination user ${user} can read the server's files (${rights.join(', ')}), so sql: checks run as the role ${CHECK_READER_ROLE}, ` +
        `which it could not prepare (${(err as Error).message}); connect as a user without those rights, or have an administrator run ` +
        `CREATE ROLE ${CHECK_READER_ROLE} NOLOGIN; GRANT ${CHECK_READER_ROLE} TO ${user}; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${CHECK_READER_ROLE}`,
      { cause: err },
    );
  }
}

export async function readOnlyQuery(
  db: PostgresDatabase,
  query: string,
  o: { timeoutMs: number },
): Promise<{ rows: Array<Record<string, unknown>> }> {
  const client = await db.pool.connect();
  try {
    const rights = await fileRights(client);
    const user = String((await client.query<{ u: string }>('SELECT current_user AS u')).rows[0]?.u);
    if (rights.length > 0) await prepareReader(client, user, rights);
    await client.query('BEGIN');
    await client.query('SET TRANSACTION READ ONLY');
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(o.timeoutMs))}`);
    if (rights.length > 0) {
      await client.query(`SET LOCAL ROLE ${CHECK_READER_ROLE}`);
      const left = await fileRights(client);
      if (left.length > 0) {
        throw new Error(
          `refused: the role ${CHECK_READER_ROLE} that sql: checks run as can read the server's files (${left.join(', ')}); revoke that from it`,
        );
      }
    }
    // queryMode is pg's (8.9+), not yet in its type definitions.
    const res = await client.query({ text: query, queryMode: 'extended' } as { text: string });
    return { rows: res.rows as Array<Record<string, unknown>> };
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
}
