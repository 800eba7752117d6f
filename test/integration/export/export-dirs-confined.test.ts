// Export folders written in pipeline files stay inside the project (issue 37: `dir: ../../etc/x` wrote there). The
// compiled `validate` and `run` refuse a folder outside the project's root, given as `..`, as an absolute path or
// through a symbolic link, at exports[i].dir with the fix (exit 2, nothing written, no run started), unless the
// project file's `exports_root:` (SCRAPE_ETL_EXPORTS_ROOT) allows that folder. Without a project file, the current
// folder and the pipeline file's folder are the roots.
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
  SCRAPE_ETL_EXPORTS_ROOT: undefined,
  TEMPORAL_ADDRESS: undefined,
  SCRAPER_API_TOKEN: 'tok-confined',
  SCRAPER_BASE_URL: 'http://127.0.0.1:9',
};
const QUICK = { timeoutMs: 20_000 };

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'export-confined-')));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A pipeline whose first export writes to `exportDir`: the value is on line 6, column 10. */
function pipelineText(exportDir: string): string {
  return [
    'name: shop',
    'kind: marketplace',
    'request:',
    '  urls: [https://shopee.tw/api/v2/item/get?itemid=1&shopid=2]',
    'exports:',
    `  - dir: ${exportDir}`,
    '    format: csv',
    '',
  ].join('\n');
}

function project(
  name: string,
  exportDir: string,
  projectText = 'pipelines: [pipelines/*.yaml]\n',
): { root: string; file: string } {
  const root = path.join(dir, name);
  fs.mkdirSync(path.join(root, 'pipelines'), { recursive: true });
  fs.writeFileSync(path.join(root, 'scrape-etl.yaml'), projectText);
  const file = path.join(root, 'pipelines', 'shop.yaml');
  fs.writeFileSync(file, pipelineText(exportDir));
  return { root, file };
}

describe('in a project', () => {
  const outside = () => path.join(dir, 'outside');
  const cases: Array<{ label: string; dir: (root: string) => string; resolved: (root: string) => string }> = [
    {
      label: '../../x (leaving the project)',
      dir: () => '../../escaped',
      resolved: (root) => path.resolve(root, '../../escaped'),
    },
    { label: 'an absolute folder outside', dir: () => outside(), resolved: () => outside() },
    {
      label: 'a symbolic link inside that points outside',
      dir: (root) => {
        fs.mkdirSync(outside(), { recursive: true });
        fs.symlinkSync(outside(), path.join(root, 'link'));
        return 'link/csv';
      },
      resolved: (root) => path.join(root, 'link', 'csv'),
    },
  ];
  for (const [n, c] of cases.entries()) {
    it(`${c.label}: validate and run exit 2 at exports[0].dir, nothing written`, async () => {
      const { root, file } = project(`p${n}`, 'placeholder');
      fs.writeFileSync(file, pipelineText(c.dir(root)));
      for (const args of [
        ['validate', '--offline', 'shop'],
        ['run', 'shop'],
      ]) {
        const r = await runCli(args, { ...QUICK, cwd: root, env });
        expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(
          `${path.join('pipelines', 'shop.yaml')}:6:10: exports[0].dir: the export folder ${c.resolved(root)} is not in the project (${root})`,
        );
        expect(r.stderr).toContain('exports_root: <folder> in scrape-etl.yaml');
      }
      expect(fs.existsSync(c.resolved(root))).toBe(false);
      expect(fs.existsSync(path.join(root, 'data'))).toBe(false);
    }, 60_000);
  }

  it('exports_root: allows that folder (and the project stays allowed); another outside is still refused', async () => {
    const allowedRoot = path.join(dir, 'shared-exports');
    const { root, file } = project(
      'allowed',
      path.join(allowedRoot, 'shop'),
      `pipelines: [pipelines/*.yaml]\nexports_root: ${allowedRoot}\n`,
    );
    const ok = await runCli(['validate', '--offline', 'shop'], { ...QUICK, cwd: root, env });
    expect(ok.code, ok.stderr).toBe(0);
    fs.writeFileSync(file, pipelineText('exports'));
    expect((await runCli(['validate', '--offline', 'shop'], { ...QUICK, cwd: root, env })).code).toBe(0);
    fs.writeFileSync(file, pipelineText(path.join(dir, 'elsewhere')));
    const refused = await runCli(['validate', '--offline', 'shop'], { ...QUICK, cwd: root, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`nor in SCRAPE_ETL_EXPORTS_ROOT's ${allowedRoot}`);
  }, 60_000);
});

describe('without a project file', () => {
  it('the current folder and the pipeline file folder are the roots; ../ and /etc are refused', async () => {
    const work = path.join(dir, 'work');
    const pipelines = path.join(dir, 'loose');
    fs.mkdirSync(work, { recursive: true });
    fs.mkdirSync(pipelines, { recursive: true });
    const file = path.join(pipelines, 'shop.yaml');
    const noProject = { ...env, SCRAPE_ETL_PROJECT: 'none' };
    for (const ok of ['./data/exports', path.join(pipelines, 'out')]) {
      fs.writeFileSync(file, pipelineText(ok));
      const r = await runCli(['validate', '--offline', file], { ...QUICK, cwd: work, env: noProject });
      expect(r.code, `${ok}: ${r.stderr}`).toBe(0);
    }
    for (const bad of ['../../etc/x', '/etc/x']) {
      fs.writeFileSync(file, pipelineText(bad));
      const r = await runCli(['validate', '--offline', file], { ...QUICK, cwd: work, env: noProject });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `${file}:6:10: exports[0].dir: the export folder ${path.resolve(work, bad)} is not in the current folder (${work}) and the pipeline file's folder (${pipelines})`,
      );
      expect(r.stderr).toContain('SCRAPE_ETL_EXPORTS_ROOT=<folder>');
    }
    // The variable allows a folder, as the project file's key does.
    fs.writeFileSync(file, pipelineText('/tmp/x'));
    const allowed = await runCli(['validate', '--offline', file], {
      ...QUICK,
      cwd: work,
      env: { ...noProject, SCRAPE_ETL_EXPORTS_ROOT: '/tmp' },
    });
    expect(allowed.code, allowed.stderr).toBe(0);
  }, 60_000);
});
