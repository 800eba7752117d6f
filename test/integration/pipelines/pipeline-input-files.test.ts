// Files the product reads as input are regular files of bounded size (issue 37): a FIFO, a device, a directory or an
// oversize file named by `request.urls_file`, or standing as the project file or a pipeline file, is refused within
// seconds by the compiled `validate` and `run` with exit 2 and the place that names it (file:line:col), what it is
// and the fix. Before, a FIFO hung `validate` (and `run`, deaf to SIGTERM), /dev/zero ended in an uncaught
// `RangeError: Invalid string length` and /dev/urandom grew without end.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../../support/cli.js';

const URL_OK = (i: number) => `https://shopee.tw/api/v2/item/get?itemid=${4420309814 + i}&shopid=10115139`;
let dir: string;
/** Nothing from the caller's environment names another project, database, data folder or server. */
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'input-files-')));
  env = {
    SCRAPE_ETL_PROJECT: 'none',
    DATABASE_URL: undefined,
    TEMPORAL_ADDRESS: undefined,
    SCRAPE_ETL_DATA_DIR: path.join(dir, 'data'),
    SCRAPER_API_TOKEN: 'tok-input-files',
    SCRAPER_BASE_URL: 'http://127.0.0.1:9',
  };
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function mkfifo(file: string): string {
  execFileSync('mkfifo', [file]);
  return file;
}

/** A pipeline file whose `request.urls_file` names `list`; its value (the path) is on line 6, column 14. */
function pipelineNaming(name: string, list: string): string {
  const file = path.join(dir, `${name}.yaml`);
  const text = [
    'name: listed',
    'kind: marketplace',
    'destination:',
    `  database: sqlite:${path.join(dir, 'listed.sqlite')}`,
    'request:',
    `  urls_file: ${list}`,
    '',
  ];
  fs.writeFileSync(file, text.join('\n'));
  return file;
}

/** Within seconds, whatever the input: a hang is a failure of its own (runCli kills the command and rejects). */
const QUICK = { timeoutMs: 20_000 };

function expectRefused(r: CliResult, where: string, what: RegExp): void {
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(2);
  expect(r.stderr).toContain(where);
  expect(r.stderr).toMatch(what);
  expect(r.stderr).not.toMatch(/RangeError|\n\s+at /);
}

describe('request.urls_file that is not a regular file of bounded size', () => {
  const cases: Array<{ label: string; list: () => string; what: RegExp; env?: NodeJS.ProcessEnv }> = [
    {
      label: 'a FIFO',
      list: () => mkfifo(path.join(dir, `fifo-${Math.random().toString(36).slice(2)}`)),
      what: /is a FIFO \(named pipe\), not a regular file; .*regular file/,
    },
    { label: '/dev/zero', list: () => '/dev/zero', what: /\/dev\/zero is a character device, not a regular file/ },
    {
      label: '/dev/urandom',
      list: () => '/dev/urandom',
      what: /\/dev\/urandom is a character device, not a regular file/,
    },
    {
      label: 'a directory',
      list: () => fs.mkdtempSync(path.join(dir, 'folder-')),
      what: /is a directory, not a regular file/,
    },
    {
      label: 'a file over the limit',
      list: () => {
        const file = path.join(dir, `big-${Math.random().toString(36).slice(2)}.txt`);
        fs.writeFileSync(file, Array.from({ length: 200 }, (_, i) => URL_OK(i)).join('\n'));
        return file;
      },
      env: { SCRAPE_ETL_MAX_URLS_FILE_BYTES: '4096' },
      what: /is \d+ bytes, over the 4096 bytes a URL list may have \(SCRAPE_ETL_MAX_URLS_FILE_BYTES\); split the list/,
    },
  ];
  for (const c of cases) {
    for (const command of ['validate', 'run'] as const) {
      it(`${c.label}: ${command} exits 2 at request.urls_file within seconds`, async () => {
        const list = c.list();
        const file = pipelineNaming(`${command}-${path.basename(list)}`, list);
        const started = Date.now();
        const r = await runCli([command, file], { ...QUICK, env: { ...env, ...c.env } });
        expectRefused(r, `${file}:6:14: request.urls_file: `, c.what);
        expect(r.stderr).toContain(list);
        expect(Date.now() - started).toBeLessThan(15_000);
      }, 30_000);
    }
  }

  it('a regular list under the limit still loads (the bound is not a ban)', async () => {
    const list = path.join(dir, 'ok.txt');
    fs.writeFileSync(list, `${URL_OK(1)}\n${URL_OK(2)}\n`);
    const r = await runCli(['validate', '--offline', pipelineNaming('ok', list)], {
      ...QUICK,
      env: { ...env, SCRAPE_ETL_MAX_URLS_FILE_BYTES: '4096' },
    });
    expect(r.code, r.stderr).toBe(0);
  }, 30_000);
});

describe('the project file and pipeline files', () => {
  it('a FIFO as scrape-etl.yaml: every command exits 2 naming it, within seconds', async () => {
    const project = path.join(dir, 'fifo-project');
    fs.mkdirSync(project);
    mkfifo(path.join(project, 'scrape-etl.yaml'));
    for (const args of [['validate'], ['run', 'shop']]) {
      const r = await runCli(args, { ...QUICK, cwd: project, env: { ...env, SCRAPE_ETL_PROJECT: undefined } });
      expectRefused(
        r,
        `${path.join(project, 'scrape-etl.yaml')}:1:1: <file>: `,
        /is a FIFO \(named pipe\), not a regular file/,
      );
    }
  }, 60_000);

  it("a FIFO among the project's pipeline files: validate and run of it exit 2 at 1:1; the project's other pipelines are unaffected", async () => {
    const project = path.join(dir, 'fifo-pipelines');
    fs.mkdirSync(path.join(project, 'pipelines'), { recursive: true });
    fs.writeFileSync(path.join(project, 'scrape-etl.yaml'), 'pipelines: [pipelines/*.yaml]\n');
    const fifo = mkfifo(path.join(project, 'pipelines', 'a-fifo.yaml'));
    fs.writeFileSync(
      path.join(project, 'pipelines', 'b.yaml'),
      ['name: shop', 'kind: marketplace', 'request:', `  urls: [${URL_OK(1)}]`, ''].join('\n'),
    );
    const projectEnv = { ...env, SCRAPE_ETL_PROJECT: undefined, SCRAPE_ETL_DATA_DIR: undefined };

    for (const command of ['validate', 'run']) {
      const r = await runCli([command, fifo], { ...QUICK, cwd: project, env: projectEnv });
      expectRefused(
        r,
        `${fifo}:1:1: <file>: `,
        /the file is a FIFO \(named pipe\), not a regular file; name a regular file/,
      );
    }
    // The project's globs match files only: every pipeline, and one by name, validate as before.
    const all = await runCli(['validate', '--offline'], { ...QUICK, cwd: project, env: projectEnv });
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.trim()).toBe(`OK ${path.join('pipelines', 'b.yaml')}`);
    const byName = await runCli(['validate', '--offline', 'shop'], { ...QUICK, cwd: project, env: projectEnv });
    expect(byName.code, byName.stderr).toBe(0);
  }, 90_000);
});
