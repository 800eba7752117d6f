// The deferred requires of the read-only bundles (scripts/lazy-modules.ts): a module stood in for is not required
// when its importer runs, is required at the first use of any of its names, and then gives the module's own values,
// through named, default and namespace imports alike; a module whose export is a function cannot be stood in for
// and fails the build. Built with esbuild as scripts/cli-bundle.ts builds, run in a Node process of its own.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { lazyModules } from '../../../scripts/lazy-modules.js';

const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-lazy-modules-')));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A package in dir/node_modules whose loading is seen: it counts its loads on globalThis. */
function writePackage(name: string, body: string): void {
  const at = path.join(dir, 'node_modules', name);
  fs.mkdirSync(at, { recursive: true });
  fs.writeFileSync(path.join(at, 'package.json'), JSON.stringify({ name, version: '1.0.0', main: 'index.js' }));
  fs.writeFileSync(path.join(at, 'index.js'), `globalThis.loads = (globalThis.loads ?? 0) + 1;\n${body}`);
}

async function bundle(entry: string, lazy: string[]): Promise<string> {
  const src = path.join(dir, 'src');
  fs.mkdirSync(src, { recursive: true });
  fs.writeFileSync(path.join(src, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.writeFileSync(path.join(src, 'entry.js'), entry);
  const out = await build({
    entryPoints: [path.join(src, 'entry.js')],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    write: false,
    logLevel: 'silent',
    external: ['counted'],
    plugins: [lazyModules(lazy, (file) => file.startsWith(src + path.sep), dir)],
  });
  const file = path.join(dir, 'out.cjs');
  fs.writeFileSync(file, out.outputFiles[0]!.text);
  return file;
}

describe('lazyModules', () => {
  it('requires a module stood in for at the first use of one of its names, with its own values', async () => {
    writePackage('counted', 'exports.twice = (n) => 2 * n;\nexports.label = "counted";\n');
    const file = await bundle(
      [
        "import { twice } from 'counted';",
        "import whole from 'counted';",
        "import * as ns from 'counted';",
        'export const before = globalThis.loads ?? 0;',
        'export const use = () => [twice(2), whole.label, ns.twice(5), globalThis.loads];',
      ].join('\n'),
      ['counted'],
    );
    const r = spawnSync(
      process.execPath,
      ['-e', `const m = require(${JSON.stringify(file)}); console.log(JSON.stringify([m.before, m.use()]))`],
      { encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    // Not loaded when the importing module ran; loaded once, at the first use, then the package's own values.
    expect(JSON.parse(r.stdout)).toEqual([0, [4, 'counted', 10, 1]]);
  });

  it('leaves a module eager without the plugin (what the stand-in changes)', async () => {
    writePackage('counted', 'exports.twice = (n) => 2 * n;\n');
    const file = await bundle(
      "import { twice } from 'counted';\nexport const before = globalThis.loads ?? 0;\nexport const use = () => twice(1);\n",
      [],
    );
    const r = spawnSync(process.execPath, ['-e', `console.log(require(${JSON.stringify(file)}).before)`], {
      encoding: 'utf8',
    });
    expect(r.stdout.trim()).toBe('1');
  });

  it('fails the build for a module whose export is a function (a class, a callable module)', () => {
    writePackage('callable', 'module.exports = function Database() {};\n');
    expect(() => lazyModules(['callable'], () => true, dir)).toThrow(/exports a function, not an object of names/);
  });
});
