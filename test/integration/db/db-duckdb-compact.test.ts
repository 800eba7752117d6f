// Compacting a DuckDB destination (destinations/duckdb/compact.ts, rewrite-format.ts) while another program wants to
// write the file. The compaction replaces the file by a copy of it; if DuckDB's own lock on the old file were let go
// at any moment before the rename (the writer closed, the copy being made or checkpointed), a program that does not
// use scrape-etl's lock file (the `duckdb` CLI, a notebook) could open the old file then and write it, and the
// rename would throw its rows away, or the compaction would fail and leave the file's free blocks. Python's duckdb
// (an independent reader and writer) polls for the file read-write from before the close until it gets in, writes
// a row and checkpoints; afterwards Python reads the closed file: its row is there, every row of ours is there,
// and at most 10% of the blocks are free.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import { pythonReadersEnv } from '../../support/python-readers.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'db-duckdb-compact-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// Tries to open the file read-write every millisecond (it says `polling` once it has been refused), then writes a
// row and leaves. Any error but DuckDB's lock conflict ends it with that error.
const INTRUDER = `
import duckdb, sys, time
f = sys.argv[1]
said = False
deadline = time.time() + 240
while True:
    try:
        c = duckdb.connect(f)
        break
    except duckdb.IOException as e:
        if 'lock' not in str(e).lower(): raise
        if not said:
            print('polling', flush=True)
            said = True
        if time.time() > deadline: raise
        time.sleep(0.001)
c.execute('create table intruder (note varchar)')
c.execute("insert into intruder values ('written while scrape-etl closed the file')")
c.execute('checkpoint')
c.close()
print('wrote', flush=True)
`;

const READ = `
import duckdb, json, sys
c = duckdb.connect(sys.argv[1], read_only=True)
total, free = c.execute('select total_blocks, free_blocks from pragma_database_size()').fetchone()
tables = [r[0] for r in c.execute('select table_name from duckdb_tables() order by 1').fetchall()]
kept = c.execute('select count(*), sum(i), count(distinct s) from kept').fetchone()
intruder = c.execute('select note from intruder').fetchall() if 'intruder' in tables else []
print(json.dumps({'total': total, 'free': free, 'kept': [int(kept[0]), int(kept[1]), int(kept[2])], 'intruder': [r[0] for r in intruder]}))
`;

/** Runs a Python script with Python's duckdb; `onOut` hears its output as it comes. */
function python(
  script: string,
  args: string[],
  onOut: (text: string) => void = () => {},
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('python3', ['-c', script, ...args], { env: pythonReadersEnv() });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => {
      out += String(d);
      onOut(out);
    });
    p.stderr.on('data', (d: Buffer) => (err += String(d)));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('DuckDB compaction with another program at the door', () => {
  it('keeps the rows a program writes as soon as it gets the file, and compacts all the same', async () => {
    const file = path.join(dir, 'dest.duckdb');
    const db = await openDatabase(`duckdb:${file}`);
    if (db.dialect !== 'duckdb') throw new Error('expected a DuckDB destination');
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    let ready!: () => void;
    const prepared = new Promise<void>((r) => (ready = r));
    // One session builds the free blocks and holds the file until the intruder is knocking.
    const session = db.session(async (conn) => {
      await conn.run(`CREATE TABLE kept AS SELECT range AS i, 'kept ' || range AS s FROM range(200000)`);
      await conn.run(
        `CREATE TABLE scratch AS SELECT range AS i, md5(range::VARCHAR) || md5((range + 1)::VARCHAR) AS s FROM range(400000)`,
      );
      await conn.run('CHECKPOINT');
      await conn.run('DROP TABLE scratch');
      await conn.run('CHECKPOINT');
      const [total, free] = (
        await conn.runAndReadAll(
          'SELECT total_blocks, free_blocks FROM pragma_database_size() WHERE database_name = current_database()',
        )
      )
        .getRows()[0]!
        .map(Number);
      expect(free, `${free} of ${total} blocks free before the close`).toBeGreaterThan(0.3 * total!);
      ready();
      await held;
    });
    await prepared;
    let knocking!: () => void;
    const refused = new Promise<void>((r) => (knocking = r));
    const intruder = python(INTRUDER, [file], (out) => {
      if (out.includes('polling')) knocking();
    });
    // Refused while the session holds the file; it then tries every millisecond.
    await Promise.race([
      refused,
      intruder.then((r) => Promise.reject(new Error(`intruder ended first: ${r.out} ${r.err}`))),
    ]);
    letGo();
    await session;
    await db.close();
    const got = await intruder;
    expect(got.code, got.err).toBe(0);
    expect(got.out).toContain('wrote');
    const read = await python(READ, [file]);
    expect(read.code, read.err).toBe(0);
    const seen = JSON.parse(read.out) as { total: number; free: number; kept: number[]; intruder: string[] };
    expect(seen.intruder).toEqual(['written while scrape-etl closed the file']);
    expect(seen.kept).toEqual([200000, 199999 * 100000, 200000]);
    expect(seen.free, `${seen.free} of ${seen.total} blocks free after the close`).toBeLessThanOrEqual(
      0.1 * seen.total,
    );
  }, 300_000);
});
