// The bounded read-only `sql:` check on DuckDB: a transaction that is always rolled back, interrupted at the timeout.
import type { DuckDatabase } from './database.js';

export async function readOnlyQuery(db: DuckDatabase, query: string, o: { timeoutMs: number }): Promise<{ rows: Array<Record<string, unknown>> }> {
  return db.session(async (conn) => {
    await conn.run('BEGIN TRANSACTION');
    const timer = setTimeout(() => conn.interrupt(), o.timeoutMs);
    try {
      const reader = await conn.runAndReadAll(query);
      return { rows: reader.getRowObjectsJS() as Array<Record<string, unknown>> };
    } catch (err) {
      throw new Error((err as Error).message.includes('INTERRUPT') ? `the query ran longer than ${o.timeoutMs} ms and was stopped` : (err as Error).message);
    } finally {
      clearTimeout(timer);
      await conn.run('ROLLBACK').catch(() => {});
    }
  });
}
