// The README stays a front door and the docs stay connected: no README table cell longer than 300 characters
// (long reference text belongs in docs/), and every relative link of README.md and docs/*.md resolves to a file
// that exists and, with a #fragment, to a heading of that file (GitHub's anchor rule).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/fixtures.js';

const docs = [
  path.join(REPO_ROOT, 'README.md'),
  ...fs
    .readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(REPO_ROOT, 'docs', f)),
];

/** Text outside fenced code blocks (links and tables in code are not links or tables). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's heading anchor: lower case, punctuation dropped (but - and _), spaces to dashes. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*]/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const out = new Set<string>();
  for (const m of prose(fs.readFileSync(file, 'utf8')).matchAll(/^#{1,6}\s+(.+)$/gm)) out.add(anchor(m[1]!));
  return out;
}

describe('README and docs', () => {
  it('no README table cell is longer than 300 characters', () => {
    const long: string[] = [];
    for (const line of prose(fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8')).split('\n')) {
      if (!line.startsWith('|')) continue;
      // Cells split on | outside backticks (a `a\|b` in code is one cell).
      const cells = line.replace(/\\\|/g, '  ').split('|').slice(1, -1);
      for (const c of cells)
        if (c.trim().length > 300) long.push(`${c.trim().slice(0, 80)}… (${c.trim().length} characters)`);
    }
    expect(long).toEqual([]);
  });

  it("'What a machine needs' names what building each native dependency from source needs (issue 36)", () => {
    // A dependency with a binding.gyp is compiled by npm when its prebuilt binary cannot be downloaded.
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const native = Object.keys(pkg.dependencies).filter((d) =>
      fs.existsSync(path.join(REPO_ROOT, 'node_modules', d, 'binding.gyp')),
    );
    expect(native).toContain('better-sqlite3');
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const table = /What a machine needs:\n\n((?:\|.*\|\n)+)/.exec(readme)?.[1] ?? '';
    for (const dep of native) {
      const row = table.split('\n').find((l) => l.includes(dep));
      expect(row, `a row of the table naming ${dep}`).toBeDefined();
      expect(row).toMatch(/python3/);
      expect(row).toMatch(/\bmake\b/);
      expect(row).toMatch(/C\+\+ compiler/);
      expect(row).toMatch(/build-essential/);
    }
  });

  it('every relative link of README.md and docs/*.md resolves, anchors included', () => {
    const broken: string[] = [];
    for (const file of docs) {
      for (const m of prose(fs.readFileSync(file, 'utf8')).matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue;
        const [rel, frag] = target.split('#') as [string, string | undefined];
        const dest = rel === '' ? file : path.resolve(path.dirname(file), rel);
        const where = `${path.relative(REPO_ROOT, file)}: ${target}`;
        if (!fs.existsSync(dest)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (frag !== undefined && dest.endsWith('.md') && !anchorsOf(dest).has(frag))
          broken.push(`${where} (no heading #${frag})`);
      }
    }
    expect(broken).toEqual([]);
  });
});
