// `scrape-etl load` inputs, through the built command: directories (recursive *.json), quoted glob patterns the
// command expands itself, `--from list.txt` and `-` (a list on stdin), many files at once, and clear errors naming
// the input when nothing matches, with nothing loaded.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../destinations/open.js';
import { REPO_ROOT, runCli } from '../../support/cli.js';
import { countRows } from '../../support/db-dump.js';
import { REAL_FIXTURES } from '../../support/fixtures.js';

let tmp: string;
let fixture: { data: { id: number; results: Array<Record<string, unknown>> } };

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'db-load-inputs-'));
  fixture = JSON.parse(fs.readFileSync(path.join(REAL_FIXTURES, 'scraping-runs-id-response-1.json'), 'utf8'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A saved scraping-run detail whose run and single result both have id `n`, so each file is one pdf_results row. */
function writeRun(file: string, n: number): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const doc = structuredClone(fixture);
  doc.data.id = n;
  doc.data.results = doc.data.results.map((r) => ({ ...r, id: n, scraping_run_id: n }));
  fs.writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** The result ids loaded into `url`, sorted, and the number of raw responses landed. */
async function loaded(url: string): Promise<{ ids: number[]; raw: number }> {
  const db = await openDatabase(url);
  try {
    if (db.dialect !== 'sqlite') throw new Error('sqlite expected');
    const ids = (
      db.sqlite.prepare('select id from pdf_results order by id').pluck().all() as Array<number | bigint>
    ).map(Number);
    return { ids, raw: await countRows(db, 'raw_responses') };
  } finally {
    await db.close();
  }
}

const load = (args: string[], opts: { input?: string; cwd?: string } = {}) =>
  runCli(['load', 'scraping-run', ...args, '--pipeline-kind', 'pdf'], { ...opts, timeoutMs: 120_000 });

describe('scrape-etl load inputs', () => {
  let tree: string;
  beforeAll(() => {
    tree = path.join(tmp, 'tree');
    writeRun(path.join(tree, 'a', '1.json'), 1);
    writeRun(path.join(tree, 'a', 'b', '2.json'), 2);
    writeRun(path.join(tree, '3.json'), 3);
    fs.writeFileSync(path.join(tree, 'a', 'notes.txt'), 'not a response');
    fs.mkdirSync(path.join(tree, 'empty'));
  });

  it('loads every *.json below a directory, recursively, and nothing else', async () => {
    const url = `sqlite:${path.join(tmp, 'dir.sqlite')}`;
    const r = await load([tree, '--db', url]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('3 files loaded');
    expect(await loaded(url)).toEqual({ ids: [1, 2, 3], raw: 3 });
  }, 60_000);

  it('expands a quoted glob pattern itself, absolute or relative to the working directory', async () => {
    const abs = `sqlite:${path.join(tmp, 'glob-abs.sqlite')}`;
    const a = await load([path.join(tree, '**', '[12].json'), '--db', abs]);
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    expect(await loaded(abs)).toEqual({ ids: [1, 2], raw: 2 });

    const rel = `sqlite:${path.join(tmp, 'glob-rel.sqlite')}`;
    const b = await load(['tree/a/**/*.json', '--db', rel], { cwd: tmp });
    expect(b.stderr).toBe('');
    expect(b.code).toBe(0);
    expect(await loaded(rel)).toEqual({ ids: [1, 2], raw: 2 });
  }, 60_000);

  it('reads inputs from --from lists and from stdin with -, each file once however often it is named', async () => {
    writeRun(path.join(tmp, 'loose', '4.json'), 4);
    writeRun(path.join(tmp, 'loose', '5.json'), 5);
    const list = path.join(tmp, 'list.txt');
    // A file, a directory that contains it again, a pattern, a blank line, CRLF line ends.
    fs.writeFileSync(
      list,
      [path.join(tree, '3.json'), tree, '', path.join(tmp, 'loose', '*.json')].join('\r\n') + '\r\n',
    );
    const url = `sqlite:${path.join(tmp, 'from.sqlite')}`;
    const r = await load(['--from', list, '--db', url]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('5 files loaded');
    expect(await loaded(url)).toEqual({ ids: [1, 2, 3, 4, 5], raw: 5 });

    const stdinUrl = `sqlite:${path.join(tmp, 'stdin.sqlite')}`;
    const s = await load(['-', path.join(tmp, 'loose', '5.json'), '--db', stdinUrl], {
      input: `${path.join(tree, 'a', '1.json')}\n${path.join(tmp, 'loose')}\n`,
    });
    expect(s.stderr).toBe('');
    expect(s.code).toBe(0);
    expect(await loaded(stdinUrl)).toEqual({ ids: [1, 4, 5], raw: 3 });
  }, 60_000);

  it('names every input that matches nothing, exits 2 and loads nothing', async () => {
    const dbFile = path.join(tmp, 'errors.sqlite');
    const pattern = path.join(tree, '**', '*.jsonl');
    const r = await load([
      tree,
      pattern,
      path.join(tmp, 'missing.json'),
      path.join(tree, 'empty'),
      '--db',
      `sqlite:${dbFile}`,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${pattern}: no file matches this pattern`);
    expect(r.stderr).toContain(`${path.join(tmp, 'missing.json')}: no such file or directory`);
    expect(r.stderr).toContain(`${path.join(tree, 'empty')}: directory holds no .json file`);
    expect(r.stderr).toContain('nothing loaded');
    expect(fs.existsSync(dbFile)).toBe(false);

    const list = path.join(tmp, 'bad-list.txt');
    fs.writeFileSync(list, `${path.join(tmp, 'nowhere', '*.json')}\n`);
    const f = await load(['--from', list, '--db', `sqlite:${dbFile}`]);
    expect(f.code).toBe(2);
    expect(f.stderr).toContain(
      `${path.join(tmp, 'nowhere', '*.json')} (listed in ${list}): no file matches this pattern`,
    );
    const none = await load(['--db', `sqlite:${dbFile}`]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no input files');
    expect(fs.existsSync(dbFile)).toBe(false);
  }, 60_000);

  it('validates every file before loading any: one bad file among many loads nothing', async () => {
    const dir = path.join(tmp, 'one-bad');
    for (let i = 1; i <= 20; i++) writeRun(path.join(dir, `${String(i).padStart(2, '0')}.json`), i);
    fs.writeFileSync(path.join(dir, '15.json'), '{"data": {"id": "not a number"}}');
    const dbFile = path.join(tmp, 'one-bad.sqlite');
    const r = await load([dir, '--db', `sqlite:${dbFile}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(path.join(dir, '15.json'));
    expect(r.stderr).toContain('nothing loaded (1 of 20 files invalid)');
    expect(fs.existsSync(dbFile)).toBe(false);
  }, 60_000);

  /** Loads `dir` with a trace of the files the command opens: how often it opened each file of `dir`. */
  async function loadTracingOpens(dir: string, url: string): Promise<Map<string, number>> {
    const trace = `${dir}-opens.txt`;
    const r = await runCli(['load', 'scraping-run', dir, '--pipeline-kind', 'pdf', '--db', url], {
      timeoutMs: 120_000,
      env: {
        NODE_OPTIONS: `--import ${path.join(REPO_ROOT, 'test', 'support', 'open-trace.mjs')}`,
        SCRAPE_ETL_OPEN_TRACE: trace,
      },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const opens = new Map<string, number>();
    for (const p of fs.readFileSync(trace, 'utf8').split('\n'))
      if (p.startsWith(dir + path.sep)) opens.set(path.relative(dir, p), (opens.get(path.relative(dir, p)) ?? 0) + 1);
    return opens;
  }

  it('reads, parses and validates each file once when what it validated fits the memory it may keep', async () => {
    const dir = path.join(tmp, 'once');
    for (let i = 1; i <= 30; i++) writeRun(path.join(dir, `${String(i).padStart(2, '0')}.json`), i);
    const url = `sqlite:${path.join(tmp, 'once.sqlite')}`;
    const opens = await loadTracingOpens(dir, url);
    expect(opens.size).toBe(30);
    expect(new Set(opens.values())).toEqual(new Set([1]));
    const got = await loaded(url);
    expect(got.raw).toBe(30);
    expect(got.ids).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  }, 60_000);

  it('reads again, in order, the files past what the validation pass may keep (8 MB of text)', async () => {
    const dir = path.join(tmp, 'past-hold');
    writeRun(path.join(dir, '1.json'), 1);
    // 9 MB of text in a field the loader keeps only in raw_responses: past the budget, so it and every file after it
    // are read again for the load.
    const big = JSON.parse(fs.readFileSync(writeRun(path.join(dir, '2.json'), 2), 'utf8')) as Record<string, unknown>;
    big['padding'] = 'x'.repeat(9 * 1024 * 1024);
    fs.writeFileSync(path.join(dir, '2.json'), JSON.stringify(big));
    writeRun(path.join(dir, '3.json'), 3);
    const url = `sqlite:${path.join(tmp, 'past-hold.sqlite')}`;
    const opens = await loadTracingOpens(dir, url);
    expect(Object.fromEntries(opens)).toEqual({ '1.json': 1, '2.json': 2, '3.json': 2 });
    const got = await loaded(url);
    expect(got.raw).toBe(3);
    expect(got.ids).toEqual([1, 2, 3]);
    const db = await openDatabase(url);
    try {
      if (db.dialect !== 'sqlite') throw new Error('sqlite expected');
      const lengths = db.sqlite.prepare('select length(body) from raw_responses order by id').pluck().all();
      expect(lengths[1]).toBe(JSON.stringify(big).length);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('loads 5,000 files named by one quoted pattern (more than a shell would pass through npx)', async () => {
    const dir = path.join(tmp, 'many');
    for (let i = 1; i <= 5000; i++)
      writeRun(path.join(dir, `part-${Math.floor(i / 1000)}`, `run-${String(i).padStart(5, '0')}.json`), i);
    const url = `sqlite:${path.join(tmp, 'many.sqlite')}`;
    const r = await load([path.join(dir, 'part-*', 'run-*.json'), '--db', url]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('5000 files loaded');
    const got = await loaded(url);
    expect(got.raw).toBe(5000);
    expect(got.ids).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
  }, 300_000);
});
