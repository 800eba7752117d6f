// Input size limits (issue 30): a pipeline file over the bound (5 MB) is refused at once with the hint to put the URL
// list in a file of its own (`request.urls_file`), which is read line by line; errors in that list name its file and
// line. The compiled `validate` on a 50 MB file ends in seconds, not the 591 s it took to parse it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPipelineFile } from '../../../pipelines/loader.js';
import { runCli } from '../../support/cli.js';

const URL_OK = (i: number) => `https://shopee.tw/api/v2/item/get?itemid=${4420309814 + i}&shopid=10115139`;
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-limits-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const head = [
  'name: listed',
  'kind: marketplace',
  'destination:',
  `  database: sqlite:${path.join('/tmp', 'listed.sqlite')}`,
  'request:',
];

describe('pipeline file size', () => {
  it('a 50 MB file is refused at once by validate (exit 2) with the urls_file hint', async () => {
    const file = path.join(dir, 'huge.yaml');
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, `${head.join('\n')}\n  urls:\n`);
    const chunk = Array.from({ length: 10_000 }, (_, i) => `    - ${URL_OK(i)}\n`).join('');
    while (fs.fstatSync(fd).size < 50 * 1024 * 1024) fs.writeSync(fd, chunk);
    fs.closeSync(fd);
    const r = await runCli(['validate', file], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${file}:1:1`);
    expect(r.stderr).toMatch(/over the 5\.0 MB a pipeline file may have/);
    expect(r.stderr).toContain('request.urls_file: urls.txt');
  }, 90_000);
});

describe('request.urls_file', () => {
  it('loads the list (blank lines and comments skipped), relative to the pipeline file', async () => {
    fs.mkdirSync(path.join(dir, 'lists'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'lists', 'urls.txt'), `# products\n${URL_OK(1)}\n\n${URL_OK(2)}\r\n${URL_OK(3)}\n`);
    const file = path.join(dir, 'listed.yaml');
    fs.writeFileSync(file, `${head.join('\n')}\n  urls_file: lists/urls.txt\n`);
    const spec = await loadPipelineFile(file);
    expect((spec.request as { urls: string[] }).urls).toEqual([URL_OK(1), URL_OK(2), URL_OK(3)]);
    expect(spec.request).not.toHaveProperty('urls_file');
  });

  it("a bad URL is reported at the list file's line; urls with urls_file, a missing or empty list are errors at urls_file", async () => {
    fs.writeFileSync(path.join(dir, 'bad.txt'), `${URL_OK(1)}\n\nnot a url\n`);
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, `${head.join('\n')}\n  urls_file: bad.txt\n`);
    await expect(loadPipelineFile(bad)).rejects.toThrow(`${path.join(dir, 'bad.txt')}:3:`);

    const both = path.join(dir, 'both.yaml');
    fs.writeFileSync(both, `${head.join('\n')}\n  urls_file: bad.txt\n  urls:\n    - ${URL_OK(1)}\n`);
    await expect(loadPipelineFile(both)).rejects.toThrow('not both');

    const missing = path.join(dir, 'missing.yaml');
    fs.writeFileSync(missing, `${head.join('\n')}\n  urls_file: nowhere.txt\n`);
    await expect(loadPipelineFile(missing)).rejects.toThrow(
      `request.urls_file: cannot read ${path.join(dir, 'nowhere.txt')}: file not found`,
    );

    fs.writeFileSync(path.join(dir, 'empty.txt'), '# nothing\n\n');
    const empty = path.join(dir, 'empty.yaml');
    fs.writeFileSync(empty, `${head.join('\n')}\n  urls_file: empty.txt\n`);
    await expect(loadPipelineFile(empty)).rejects.toThrow('holds no URL');
  });
});
