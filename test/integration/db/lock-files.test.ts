// Lock files that heal (issue 30): a lock holds an owner record (pid, process start time, host) that is validated.
// An empty lock (a load on a full disk leaves one), a garbled one, or one naming a pid now used by another process
// must not make every command wait for ever: it is taken over (the unreadable kinds after a bounded grace, with a
// message). A wait obeys SIGTERM at once and leaves no `.lock.waiting-*` marker; markers of waiters killed earlier
// are swept. Real DuckDB files, real processes.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import { lockPathOf, otherProcessesWaiting, setWaitReporter } from '../../../destinations/duckdb/file-lock.js';
import { acquireLockFile } from '../../../lib/file-lock.js';
import { ownRecord } from '../../../lib/lock-owner.js';
import { REPO_ROOT } from '../../support/cli.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lock-files-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Opens (and migrates: a session under the lock) a DuckDB file, and closes it; with the wait messages seen. */
async function openAndClose(file: string): Promise<{ ms: number; messages: string[] }> {
  const messages: string[] = [];
  const previous = setWaitReporter((m) => messages.push(m));
  const t0 = Date.now();
  try {
    const db = await openDatabase(`duckdb:${file}`);
    await db.close();
  } finally {
    setWaitReporter(previous);
  }
  return { ms: Date.now() - t0, messages };
}

describe('a DuckDB lock file nobody holds', () => {
  it('empty (left by a full disk): taken over after the bounded grace (default 10 s), with a message', async () => {
    const file = path.join(tmp, 'empty.duckdb');
    fs.writeFileSync(lockPathOf(file), '');
    const r = await openAndClose(file);
    expect(
      r.messages.some((m) => m.includes(`${lockPathOf(file)}: the lock file is empty`) && m.includes('taking it over')),
    ).toBe(true);
    // Bounded: the grace, not for ever (generous for a loaded machine).
    expect(r.ms).toBeLessThan(60_000);
    expect(fs.existsSync(lockPathOf(file))).toBe(false);
  }, 90_000);

  it('garbled: taken over likewise', async () => {
    const file = path.join(tmp, 'garbage.duckdb');
    fs.writeFileSync(lockPathOf(file), '\u0000\u0000{"pid":');
    const r = await openAndClose(file);
    expect(r.messages.some((m) => m.includes('the lock file is unreadable') && m.includes('taking it over'))).toBe(
      true,
    );
  }, 90_000);

  it('naming a live pid whose process started at another time (a reused pid): taken over at once', async () => {
    const file = path.join(tmp, 'reused.duckdb');
    // The parent of this process is alive; the record says it started at another moment: another process.
    fs.writeFileSync(
      lockPathOf(file),
      JSON.stringify({ pid: process.ppid, host: os.hostname(), since: new Date().toISOString(), started: '1' }),
    );
    const r = await openAndClose(file);
    expect(r.messages).toEqual([]);
    expect(fs.existsSync(lockPathOf(file))).toBe(false);
  }, 60_000);

  // Issue #37: a lock without a start time (the bare pid earlier versions wrote, or a record without `started`)
  // naming a live process that is not scrape-etl was honoured for ever, and described as "another scrape-etl process".
  for (const [what, text] of [
    ['the bare pid of a live process that is not scrape-etl', (pid: number) => String(pid)],
    [
      'a record without a start time naming a live process that is not scrape-etl',
      (pid: number) => JSON.stringify({ pid, host: os.hostname(), since: new Date().toISOString() }),
    ],
  ] as const) {
    it(`${what}: taken over at once`, async () => {
      const file = path.join(tmp, `unrelated-${what.length}.duckdb`);
      const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
      try {
        fs.writeFileSync(lockPathOf(file), text(sleeper.pid!));
        const r = await openAndClose(file);
        expect(r.messages).toEqual([]);
        expect(fs.existsSync(lockPathOf(file))).toBe(false);
      } finally {
        sleeper.kill('SIGKILL');
      }
    }, 60_000);
  }

  it('a record without a start time naming a live scrape-etl process is honoured, and the wait names its command', async () => {
    const file = path.join(tmp, 'legacy-holder.duckdb');
    // A live process whose command line says scrape-etl, as a worker of an earlier version.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', 'scrape-etl', 'worker'], {
      stdio: 'ignore',
    });
    const messages: string[] = [];
    const previous = setWaitReporter((m) => messages.push(m));
    try {
      await new Promise((r) => setTimeout(r, 200));
      fs.writeFileSync(
        lockPathOf(file),
        JSON.stringify({ pid: holder.pid, host: os.hostname(), since: '2026-11-29T04:00:00.000Z' }),
      );
      const opening = openDatabase(`duckdb:${file}`);
      await new Promise((r) => setTimeout(r, 1500));
      expect(messages[0]).toMatch(
        new RegExp(
          `waiting for \\S+legacy-holder\\.duckdb: another scrape-etl process \\(pid ${holder.pid} on [^,]+, since 2026-11-29T04:00:00.000Z: \\S*node -e setTimeout.* scrape-etl worker\\) is using it`,
        ),
      );
      holder.kill('SIGKILL');
      const db = await opening;
      await db.close();
    } finally {
      setWaitReporter(previous);
      holder.kill('SIGKILL');
    }
  }, 60_000);

  it('a waiting marker of a process that is gone is swept, and does not count as a waiter', () => {
    const file = path.join(tmp, 'marker.duckdb');
    const marker = `${lockPathOf(file)}.waiting-${os.hostname()}-2147483646`;
    fs.writeFileSync(marker, '');
    expect(otherProcessesWaiting(file)).toBe(false);
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe('a wait for a held lock', () => {
  it('ends at once on SIGTERM and leaves no waiting marker', async () => {
    const file = path.join(tmp, 'held.duckdb');
    // Held by this (live) process, in its own words.
    fs.writeFileSync(lockPathOf(file), JSON.stringify(ownRecord()));
    const script = `import { acquireFileLock } from ${JSON.stringify(path.join(REPO_ROOT, 'destinations/duckdb/file-lock.ts'))};
process.stdout.write('waiting\\n');
await acquireFileLock(${JSON.stringify(file)});
process.stdout.write('acquired\\n');`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      child.on('close', (code, signal) => r({ code, signal })),
    );
    const prefix = `${path.basename(lockPathOf(file))}.waiting-`;
    const deadline = Date.now() + 60_000;
    while (!fs.readdirSync(tmp).some((f) => f.startsWith(prefix))) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the child never waited:\n${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    child.kill('SIGTERM');
    const t = Date.now();
    const end = await Promise.race([
      closed,
      new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), 20_000)),
    ]);
    if (end === 'still waiting') child.kill('SIGKILL');
    expect(end, out).toEqual({ code: null, signal: 'SIGTERM' });
    expect(Date.now() - t).toBeLessThan(20_000);
    expect(out).not.toContain('acquired');
    expect(fs.readdirSync(tmp).filter((f) => f.startsWith(prefix))).toEqual([]);
    fs.rmSync(lockPathOf(file));
  }, 90_000);
});

describe('lib/file-lock (the dev server and run-start locks)', () => {
  it('an empty lock is taken over after the grace, with a message naming it; an abort ends a wait at once', async () => {
    const lock = path.join(tmp, 'start.lock');
    fs.writeFileSync(lock, '');
    const messages: string[] = [];
    process.env['SCRAPE_ETL_LOCK_UNREADABLE_MS'] = '500';
    try {
      const release = await acquireLockFile(lock, 'the test lock', { report: (m) => messages.push(m) });
      expect(messages).toEqual([expect.stringContaining(`${lock}: the lock file is empty`)]);
      expect(JSON.parse(fs.readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid, host: os.hostname() });
      release();
      expect(fs.existsSync(lock)).toBe(false);
    } finally {
      delete process.env['SCRAPE_ETL_LOCK_UNREADABLE_MS'];
    }
    // A live holder (this process's record, written by "someone else"): the wait ends when aborted.
    fs.writeFileSync(lock, JSON.stringify({ ...ownRecord(), pid: process.ppid, started: undefined }));
    const abort = new AbortController();
    const waiting = acquireLockFile(lock, 'the test lock', { signal: abort.signal }).then(
      () => 'acquired',
      (e: Error) => e.message,
    );
    setTimeout(() => abort.abort(), 300);
    expect(await waiting).toBe('stopped while waiting for the test lock');
  });
});
