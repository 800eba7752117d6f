// An export that cannot be written (issue 26), as a user meets it with `scrape-etl run`: the export folder is a file.
// Before: 174 s of retries, Node's raw EEXIST, an alert with `event: succeeded` (so the default `on:` list alerted
// nobody), and a "write them again with" command lacking --database/--format/--tables that, run verbatim, made an
// empty database in the current folder and said "nothing to export" with exit 0.
// Now: the export fails at once (non-retryable ExportConfigError) with a sentence naming the path, the problem and
// the fix; the data keeps its status; `export_failed` reaches a webhook subscribed by default; and the printed
// command, run verbatim by a shell from another folder once the file is moved away, writes the files (read back
// with Python's csv module).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeExportFsError } from '../../../export/fs-errors.js';
import { startCliBed, type CliBed } from '../../support/cli-bed.js';
import { CLI, jsonLines, runCli } from '../../support/cli.js';
import { startLocalServer, type LocalServer } from '../../support/local-server.js';

const TOKEN = 'export-config-token';
let bed: CliBed;
let hook: LocalServer;
let env: NodeJS.ProcessEnv;
let binDir: string;

beforeAll(async () => {
  bed = await startCliBed({ name: 'export-config', token: TOKEN, seed: 9 });
  hook = await startLocalServer();
  hook.respond = (_req, res) => {
    res.writeHead(200);
    res.end('ok');
  };
  // `scrape-etl` on PATH, as an installed package puts it, so a printed command can be run as printed.
  binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-bin-'));
  fs.writeFileSync(path.join(binDir, 'scrape-etl'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, {
    mode: 0o755,
  });
  env = { ...bed.env, HOOK_BASE: hook.base, SCRAPE_ETL_BACKGROUND_WORKER: '0' };
}, 120_000);

afterAll(async () => {
  await hook?.close();
  await bed?.close();
  if (binDir) fs.rmSync(binDir, { recursive: true, force: true });
});

/** Data records of a CSV file with this delimiter, as Python's csv module (strict) reads them, header excluded. */
function pythonCsvRecords(file: string, delimiter: string): number {
  const script =
    'import csv,sys\nwith open(sys.argv[1], newline="", encoding="utf-8") as f:\n  print(sum(1 for _ in csv.reader(f, delimiter=sys.argv[2], strict=True)) - 1)';
  return Number(execFileSync('python3', ['-c', script, file, delimiter], { encoding: 'utf8' }).trim());
}

describe('exports that cannot be written', () => {
  it('fail within seconds with a sentence, alert export_failed, and print a command that writes the files when run verbatim', async () => {
    const blocker = path.join(bed.dir, 'out');
    fs.writeFileSync(blocker, 'a file where the export folder should be');
    const dbFile = path.join(bed.dir, 'data with space', 'shop.sqlite');
    const file = path.join(bed.dir, 'shop.yaml');
    fs.writeFileSync(
      file,
      [
        'name: shop-export',
        'kind: marketplace',
        'request:',
        '  urls:',
        '    - https://shopee.tw/api/v2/item/get?itemid=4420309814&shopid=10115139',
        '    - https://shopee.tw/api/v2/item/get?itemid=1234567890&shopid=10115139',
        'destination:',
        `  database: sqlite:${dbFile}`,
        'exports:',
        `  - dir: ${blocker}`,
        '    format: csv',
        '    tables: [marketplace_products, marketplace_shops]',
        '    delimiter: ";"',
        'notify:',
        '  webhooks:',
        // No `on:`: the default list, which must hold export_failed.
        '    - url: ${HOOK_BASE}/alerts',
      ].join('\n'),
    );
    const started = Date.now();
    const r = await runCli(['run', file], { cwd: bed.dir, env, timeoutMs: 180_000 });
    const seconds = (Date.now() - started) / 1000;
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toContain('pipeline shop-export succeeded');
    // One sentence: the folder, the file in the way, the fix; no errno, no retries (174 s before).
    expect(r.stderr).toContain(
      `export folder ${blocker} cannot be created: ${blocker} is a file, not a folder; remove or rename that file`,
    );
    expect(r.stderr).not.toMatch(/EEXIST|ENOTDIR/);
    expect(seconds).toBeLessThan(90);

    const alerts = hook.seen
      .filter((s) => s.url === '/alerts')
      .map((s) => JSON.parse(s.body) as Record<string, unknown>);
    // The run's first load also created inferred columns (schema_changed); the status event 'succeeded' is not in
    // the default list, so without export_failed this receiver would not hear of the failed export at all.
    expect(alerts.map((a) => a['event'])).not.toContain('succeeded');
    const exportFailed = alerts.filter((a) => a['event'] === 'export_failed');
    expect(exportFailed).toHaveLength(1);
    expect(exportFailed[0]).toMatchObject({ pipeline: 'shop-export', status: 'succeeded', export_status: 'failed' });
    expect(String(exportFailed[0]!['detail'])).toContain('is a file, not a folder');

    const lines = r.stderr.split('\n');
    const at = lines.findIndex((l) => l.includes('write them again with:'));
    expect(at).toBeGreaterThan(-1);
    const command = lines[at + 1]!.trim();
    // The tool as this test invoked it (`node <path>`: no scrape-etl on its PATH), which runs verbatim below.
    expect(command).toMatch(/^(scrape-etl|node \S+scrape-etl\.js) export --database /);

    // Fixed, then the printed command as printed, from another folder (a relative default would miss the data).
    fs.rmSync(blocker);
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-elsewhere-'));
    try {
      const again = spawnSync('sh', ['-c', command], {
        cwd: elsewhere,
        env: { ...process.env, ...env, PATH: `${binDir}:${process.env['PATH']}`, DATABASE_URL: '' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(again.status, again.stderr).toBe(0);
      expect(fs.readdirSync(elsewhere)).toEqual([]);
      const written = fs.readdirSync(blocker).sort();
      expect(written).toHaveLength(2);
      expect(written[0]).toMatch(/^shop-export_marketplace_products_.*\.csv$/);
      expect(written[1]).toMatch(/^shop-export_marketplace_shops_.*\.csv$/);
      expect(pythonCsvRecords(path.join(blocker, written[0]!), ';')).toBe(2);
      // The delimiter of the pipeline's export, as the run would have written it.
      expect(fs.readFileSync(path.join(blocker, written[0]!), 'utf8').split('\n')[0]).toContain(';');
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }

    // `run --json` of the same state reports it in the result too.
    const status = await runCli(['status', '--json', '--database', `sqlite:${dbFile}`], { cwd: bed.dir, env });
    const row = jsonLines(status.stdout)[0]!;
    expect(row['exportStatus']).toBe('failed');
    expect(String(row['error'])).toContain('is a file, not a folder');
  }, 300_000);

  it('says what is wrong for each permanent file-system error, never only the errno', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-fs-errors-'));
    try {
      const file = path.join(dir, 'f');
      fs.writeFileSync(file, 'x');
      const cases: Array<[string, RegExp]> = [
        ['EEXIST', /is a file, not a folder/],
        ['ENOTDIR', /is a file, not a folder/],
        ['EACCES', /may not write .*give it write permission/],
        ['EROFS', /read-only file system/],
        ['ENOSPC', /is full; free space/],
      ];
      for (const [code, text] of cases) {
        const err = Object.assign(new Error(`${code}: raw`), {
          code,
          path: code === 'ENOTDIR' ? path.join(file, 'sub') : file,
        });
        const sentence = describeExportFsError(err, code === 'ENOTDIR' ? path.join(file, 'sub') : file);
        expect(sentence, code).toMatch(text);
        expect(sentence).not.toContain(code);
      }
      expect(describeExportFsError(Object.assign(new Error('x'), { code: 'ECONNRESET' }), dir)).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the CLI export into a folder below a file (ENOTDIR) fails at once with the sentence, exit 2', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-notdir-'));
    try {
      const file = path.join(dir, 'plain-file');
      fs.writeFileSync(file, 'x');
      const db = path.join(bed.dir, 'data with space', 'shop.sqlite');
      const out = path.join(file, 'sub');
      const r = await runCli(['export', '--database', `sqlite:${db}`, '--pipeline', 'shop-export', '--out', out], {
        cwd: bed.dir,
        env,
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `export folder ${out} cannot be created: ${file} is a file, not a folder; remove or rename that file, or give --out another folder`,
      );
      expect(r.stderr).not.toMatch(/ENOTDIR|EEXIST/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
