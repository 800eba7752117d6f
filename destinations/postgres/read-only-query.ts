// The bounded read-only `sql:` check on Postgres: a transaction with SET TRANSACTION READ ONLY and a local
// statement_timeout, always rolled back.
import type { PostgresDatabase } from '../../db/connect.js';

export async function readOnlyQuery(db: PostgresDatabase, query: string, o: { timeoutMs: number }): Promise<{ rows: Array<Record<string, unknown>> }> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET TRANSACTION READ ONLY');
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(o.timeoutMs))}`);
    const res = await client.query(query);
    return { rows: res.rows as Array<Record<string, unknown>> };
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
}
