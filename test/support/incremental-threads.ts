// A threaded incremental CSV export compared with one thread on a copy of the same SQLite file, over two rounds:
// the same bytes, the same rows and the same watermark, then only the rows loaded after the first round. Shared by
// the tests of the threaded export's two encoders (export-csv-parallel, export-csv-records).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../destinations/open.js';
import type { ColumnHints } from '../../export/columns.js';
import { exportTables, type ExportOptions } from '../../export/csv.js';
import { readWatermark } from '../../export/watermarks.js';

export async function expectIncrementalLikeOneThread(o: {
  db: SqliteDatabase;
  dir: string;
  table: string;
  columnHints: ColumnHints;
  /** Rows of pipeline p1 before the first round, and the watermark (highest load id) it leaves. */
  firstRows: number;
  firstWatermark: bigint;
  /** Adds 50,000 rows of p1 under load `nextLoad` (run on both files). */
  addRows: (d: SqliteDatabase, nextLoad: bigint) => void;
}): Promise<void> {
  const copy = join(o.dir, 'copy.sqlite');
  await o.db.sqlite.backup(copy);
  const twin = (await openDatabase(`sqlite:${copy}`)) as SqliteDatabase;
  try {
    for (const round of [1, 2]) {
      const base: Omit<ExportOptions, 'outDir'> = {
        tables: [o.table],
        pipeline: 'p1',
        mode: 'incremental',
        columnHints: o.columnHints,
        fileName: `round-${round}.csv`,
      };
      const [a] = await exportTables(o.db, { ...base, outDir: join(o.dir, 'threads'), threads: 2 });
      const [b] = await exportTables(twin, { ...base, outDir: join(o.dir, 'single'), threads: 1 });
      expect(a!.threads).toBe(2);
      expect((await readFile(a!.file)).equals(await readFile(b!.file))).toBe(true);
      expect(a!.rows).toBe(b!.rows);
      expect(await readWatermark(o.db, 'p1', o.table)).toBe(await readWatermark(twin, 'p1', o.table));
      // The second round exports only what was loaded after the first.
      if (round === 1) {
        expect(a!.rows).toBe(o.firstRows);
        expect(await readWatermark(o.db, 'p1', o.table)).toBe(o.firstWatermark);
        for (const d of [o.db, twin]) o.addRows(d, o.firstWatermark + 1n);
      } else {
        expect(a!.rows).toBe(50_000);
        expect(await readWatermark(o.db, 'p1', o.table)).toBe(o.firstWatermark + 1n);
      }
    }
  } finally {
    await twin.close();
  }
}
