// A hostile or mistaken project file (issue 37), through the compiled command:
// - a YAML alias bomb ("billion laughs") is exit 2 at its file:line:col with the pipeline files' limit, not exit 1
//   from the library's bare ReferenceError;
// - `pipelines:` globs stay inside the project: an absolute glob (`/**/*.yaml`, which walked the whole disk) or one
//   with `..` is refused at its place with the fix, by every command, before any folder is walked.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';

let dir: string;
const env: NodeJS.ProcessEnv = {
  DATABASE_URL: undefined,
  SCRAPE_ETL_DATA_DIR: undefined,
  SCRAPE_ETL_PROJECT: undefined,
  TEMPORAL_ADDRESS: undefined,
};
const QUICK = { timeoutMs: 20_000 };

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'project-hostile-')));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function project(name: string, text: string): string {
  const root = path.join(dir, name);
  fs.mkdirSync(path.join(root, 'pipelines'), { recursive: true });
  fs.writeFileSync(path.join(root, 'scrape-etl.yaml'), text);
  fs.writeFileSync(
    path.join(root, 'pipelines', 'shop.yaml'),
    [
      'name: shop',
      'kind: marketplace',
      'request:',
      '  urls: [https://shopee.tw/api/v2/item/get?itemid=1&shopid=2]',
      '',
    ].join('\n'),
  );
  return root;
}

describe('alias bomb', () => {
  it('exits 2 at the alias that passes the limit, with file:line:col', async () => {
    const levels = ['k0: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 9; i++)
      levels.push(
        `k${i}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(', ')}]`,
      );
    const root = project('bomb', `pipelines: [pipelines/*.yaml]\n${levels.join('\n')}\n`);
    const r = await runCli(['validate', '--offline'], { ...QUICK, cwd: root, env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `${path.join(root, 'scrape-etl.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: <yaml>: aliases expand to more than 10000 nodes at alias \\*[a-i]`,
      ),
    );
    expect(r.stderr).toContain('write the settings out');
  }, 30_000);
});

describe('pipelines: globs stay inside the project', () => {
  for (const glob of ['/**/*.yaml', '../**/*.yaml', 'pipelines/../../*.yaml', '{pipelines,..}/*.yaml']) {
    it(`${glob} is refused at its place, before anything is walked`, async () => {
      const name = `glob-${Buffer.from(glob).toString('hex').slice(0, 16)}`;
      const root = project(
        name,
        `destination: sqlite:data/x.sqlite\npipelines:\n  - pipelines/*.yaml\n  - '${glob}'\n`,
      );
      for (const args of [
        ['validate', '--offline'],
        ['status', 'shop'],
      ]) {
        const started = Date.now();
        const r = await runCli(args, { ...QUICK, cwd: root, env });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain(`${path.join(root, 'scrape-etl.yaml')}:4:5: pipelines[1]: `);
        expect(r.stderr).toContain(`leaves the project (${root})`);
        expect(r.stderr).toMatch(/write it relative to the project's folder, without '\.\.' or a leading '\/'/);
        expect(Date.now() - started).toBeLessThan(15_000);
      }
    }, 60_000);
  }

  it('globs inside the project, with ** and braces, still find the pipelines', async () => {
    const root = project('globs-ok', "pipelines: ['pipelines/**/*.{yaml,yml}', 'pipelines/./shop.yaml']\n");
    const r = await runCli(['validate', '--offline'], { ...QUICK, cwd: root, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`OK ${path.join('pipelines', 'shop.yaml')}`);
  }, 30_000);
});
