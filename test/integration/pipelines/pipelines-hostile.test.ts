// Hostile pipeline files (issue 10, defect 10): very deep nesting was reported as "YAML syntax error: Maximum
// call stack size exceeded" at wherever the stack ran out, and a billion-laughs file made `validate` exit 1
// with no location. Both are input errors: exit 2 and file:line:col naming the place.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineFileError } from '../../../pipelines/errors.js';
import { MAX_ALIAS_EXPANSION, MAX_NESTING, parsePipelineText } from '../../../pipelines/loader.js';
import { runCli } from '../../support/cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelines-hostile-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const HEAD = 'name: hostile\nkind: results\n';
const deepFlow = `${HEAD}request:\n  x: ${'['.repeat(5000)}${']'.repeat(5000)}\n`;
// 1,000 levels (about 1 MB): far past MAX_NESTING, and under the 5 MB a pipeline file may have (pipeline-limits).
const deepBlock = `${HEAD}request:\n${Array.from({ length: 1000 }, (_, i) => `${'  '.repeat(i + 1)}k${i}:\n`).join('')}`;
// Nine times nine times ... : 9^9 "lol"s from a 1 kB file.
const laughs =
  `${HEAD}request:\n  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n` +
  ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']
    .map(
      (k, i) =>
        `  ${k}: &${k} [${Array(9)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(',')}]\n`,
    )
    .join('');

function issuesOf(text: string): string[] {
  try {
    parsePipelineText(text, 'f.yaml', { env: {} });
  } catch (err) {
    expect(err).toBeInstanceOf(PipelineFileError);
    return (err as PipelineFileError).message.split('\n');
  }
  throw new Error('expected the file to be refused');
}

describe('hostile pipeline files', () => {
  it('deep flow nesting: one issue at the bracket that goes too deep', () => {
    const issues = issuesOf(deepFlow);
    expect(issues).toHaveLength(1);
    const m =
      /^f\.yaml:4:(\d+): <yaml>: nested deeper than (\d+) levels here; a pipeline file needs a few levels, not thousands$/.exec(
        issues[0]!,
      );
    expect(m, issues[0]).not.toBeNull();
    expect(Number(m![2])).toBe(MAX_NESTING);
    // The place is the bracket that crossed the limit, not wherever a stack happened to run out.
    const col = Number(m![1]);
    expect(deepFlow.split('\n')[3]![col - 1]).toBe('[');
    expect(col).toBeLessThan(6 + MAX_NESTING);
  });

  it('deep block nesting: the key that goes too deep', () => {
    const issues = issuesOf(deepBlock);
    expect(issues).toHaveLength(1);
    const m = /^f\.yaml:(\d+):(\d+): <yaml>: nested deeper than \d+ levels here/.exec(issues[0]!);
    expect(m, issues[0]).not.toBeNull();
    const line = Number(m![1]);
    expect(line).toBeGreaterThan(4);
    expect(line).toBeLessThan(4 + MAX_NESTING);
    expect(deepBlock.split('\n')[line - 1]!.slice(Number(m![2]) - 1)).toMatch(/^k\d+:$/);
  });

  it('billion laughs: the alias whose expansion passes the limit', () => {
    // Running total of alias expansions: b adds 9x10, c 9x91, d 9x820 (8,289 so far), then the first *d of
    // line 8 (key e) adds 7,381 and passes 10,000.
    const issues = issuesOf(laughs);
    expect(issues).toEqual([
      `f.yaml:8:10: <yaml>: aliases expand to more than ${MAX_ALIAS_EXPANSION} nodes at alias *d; a pipeline file has no use for such expansion (a "billion laughs" file?)`,
    ]);
    // A cycle is named too, rather than built.
    expect(issuesOf(`${HEAD}request: &r\n  self: *r\n`)).toEqual([
      'f.yaml:4:9: <yaml>: alias *r refers to a node that contains it; a pipeline file cannot hold cyclic data',
    ]);
  });

  it('ordinary anchors and aliases still work', () => {
    const text = `${HEAD}request: { per_page: &n 50, max_pages: *n }\ndestination: { database: 'sqlite:x.sqlite' }\n`;
    const spec = parsePipelineText(text, 'ok.yaml', { env: {} });
    expect(spec.request).toMatchObject({ per_page: 50, max_pages: 50 });
  });

  it('scrape-etl validate exits 2 with file:line:col for each of them', async () => {
    const files = { 'deep-flow.yaml': deepFlow, 'deep-block.yaml': deepBlock, 'laughs.yaml': laughs };
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    const paths = Object.keys(files).map((f) => join(dir, f));
    const r = await runCli(['validate', ...paths]);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines.pop()).toBe('3 of 3 files invalid');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^${paths[0]}:4:\\d+: <yaml>: nested deeper than`));
    expect(lines[1]).toMatch(new RegExp(`^${paths[1]}:\\d+:\\d+: <yaml>: nested deeper than`));
    expect(lines[2]).toMatch(new RegExp(`^${paths[2]}:8:10: <yaml>: aliases expand to more than`));
  });
});
