// `load` on a full disk (a 1 MB tmpfs): one line naming the database file, exit 1, and the run's pipeline_runs row
// finished (not left `running`); a row left `running` by a load whose process is gone (killed) is finalised as
// `interrupted` by the next load. Needs root for the mount (CI runs as root); as anyone else it fails, saying so.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REAL_FIXTURES } from '../../support/fixtures.js';
import { runCli } from '../../support/cli.js';

let dir: string;
let mnt: string;
let inputs: string;

beforeAll(() => {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    throw new Error(
      'test/integration/db/load-full-disk.test.ts must run as root: it mounts a 1 MB tmpfs to fill (mount -t tmpfs); CI runs as root',
    );
  }
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'load-full-disk-'));
  mnt = path.join(dir, 'mnt');
  fs.mkdirSync(mnt);
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt], { encoding: 'utf8' });
  if (m.status !== 0) throw new Error(`mount -t tmpfs failed: ${m.stderr}`);
  // 60 files of results, 40 KB each: more than the 1 MB disk holds.
  inputs = path.join(dir, 'in');
  fs.mkdirSync(inputs);
  const r = JSON.parse(fs.readFileSync(path.join(REAL_FIXTURES, 'results-response-1.json'), 'utf8')) as {
    data: Array<Record<string, unknown>>;
  };
  const rec = r.data[0]!;
  for (let f = 0; f < 60; f++) {
    const data = Array.from({ length: 5 }, (_, i) => ({
      ...rec,
      id: f * 100 + i + 1,
      content: { text: `${'x'.repeat(8000)}${f}-${i}` },
    }));
    fs.writeFileSync(path.join(inputs, `r${String(f).padStart(2, '0')}.json`), JSON.stringify({ ...r, data }));
  }
});

afterAll(() => {
  if (mnt) spawnSync('umount', [mnt]);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function rows(db: string): Array<[string, string, string | null]> {
  const out = spawnSync(
    'python3',
    [
      '-c',
      `import sqlite3,json;c=sqlite3.connect(${JSON.stringify(db)});print(json.dumps(c.execute('select workflow_id,status,error from pipeline_runs order by id').fetchall()))`,
    ],
    { encoding: 'utf8' },
  );
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout) as Array<[string, string, string | null]>;
}

describe('load on a full disk', () => {
  it("one line naming the file, exit 1, the row finished; a dead load's running row is finalised by the next load", async () => {
    const db = path.join(mnt, 'full.sqlite');
    const r = await runCli(['load', 'results', inputs, '--database', `sqlite:${db}`, '--pipeline', 'fullp'], {
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^scrape-etl: ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the disk is full \\(`),
    );
    expect(lines[0]).toContain('free space there');
    const after = rows(db);
    expect(after).toHaveLength(1);
    expect(after[0]![1]).toBe('failed');
    expect(after[0]![2]).toContain('the disk is full');

    // A load killed before it finished its row (its pid is gone): the next load marks that row interrupted.
    spawnSync('umount', [mnt]);
    const roomy = path.join(dir, 'roomy.sqlite');
    const first = await runCli(['load', 'results', path.join(inputs, 'r00.json'), '--database', `sqlite:${roomy}`], {
      timeoutMs: 120_000,
    });
    expect(first.code, first.stderr).toBe(0);
    const dead = `cli-load--2026-01-01T00:00:00.000Z--deadbeef--2147483646@${os.hostname()}`;
    const ins = spawnSync(
      'python3',
      [
        '-c',
        `import sqlite3;c=sqlite3.connect(${JSON.stringify(roomy)});c.execute("insert into pipeline_runs (workflow_id,pipeline,kind,status,started_at) values ('${dead}','cli-load','load:results','running','2026-01-01T00:00:00.000Z')");c.commit()`,
      ],
      { encoding: 'utf8' },
    );
    expect(ins.status, ins.stderr).toBe(0);
    const next = await runCli(['load', 'results', path.join(inputs, 'r01.json'), '--database', `sqlite:${roomy}`], {
      timeoutMs: 120_000,
    });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`the load ${dead} had ended without finishing; its run is now marked interrupted`);
    const final = rows(roomy).find(([id]) => id === dead)!;
    expect(final[1]).toBe('interrupted');
    expect(rows(roomy).filter(([, s]) => s === 'running')).toEqual([]);
  }, 240_000);
});
