// The build step of vendor/ (vendor/README.md). For each package of PACKAGES, from the compiled re-export
// dist/vendor/<name>.js:
//  1. esbuild bundles the package into one CommonJS file, <name>.bundle.cjs (whitespace and syntax minified, names
//     kept so class names in errors stay: a smaller file is parsed sooner);
//  2. the bundle is loaded as vendor/load-bundle.ts loads it and used as a command uses it (exercise below), then
//     V8's code cache of it, which now holds the bytecode of every function that use compiled, is written to
//     <name>.bundle.cache;
//  3. <name>.js becomes a small ES module exporting the same names from that bundle (loadBundle).
// The names are read from the compiled re-export itself, so vendor/<name>.ts stays the one list of them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { loadBundle } from '../vendor/load-bundle.js';
import { lazyModules } from './lazy-modules.js';

/**
 * fdir (tinyglobby's directory walker) probes for picomatch with a runtime `require` when it loads, for its own
 * `.glob()` helper, which tinyglobby never calls (it hands fdir its own matcher, bundled). Left in, the probe loads
 * picomatch's six CommonJS files a second time from node_modules at every start; the plugin cuts the probe out of
 * the bundle, and fails the build when fdir's code no longer has it, so an update is looked at rather than ignored.
 */
const FDIR_PICOMATCH_PROBE =
  /try \{\s*__require\.resolve\("picomatch"\);\s*pm = __require\("picomatch"\);\s*\} catch \{\}/;
const withoutFdirPicomatchProbe: Plugin = {
  name: 'without-fdir-picomatch-probe',
  setup(b) {
    b.onLoad({ filter: /[\\/]fdir[\\/]dist[\\/]index\.mjs$/ }, (args) => {
      const source = fs.readFileSync(args.path, 'utf8');
      if (!FDIR_PICOMATCH_PROBE.test(source)) {
        throw new Error(
          `${args.path}: fdir's picomatch probe is not where scripts/vendor-bundles.ts expects it; look at the new fdir and update the plugin`,
        );
      }
      return {
        contents: source.replace(FDIR_PICOMATCH_PROBE, '/* picomatch probe cut by scripts/vendor-bundles.ts */'),
        loader: 'js',
      };
    });
  },
};

/** What each package's use looks like on a command's path: run once at build time so the cache holds it compiled. */
// `any`: each package's own API, typed in its package.
type Exercise = (m: Record<string, any>) => void;

const PROJECT_SAMPLE =
  'pipelines: pipelines/**/*.yaml\ndestination: sqlite:./data/shop.sqlite\ntemporal:\n  address: localhost:7233\n  task_queue: scrape-etl\nworker:\n  url_chunk_size: 50\n';
const PIPELINE_SAMPLE = [
  'name: shop',
  'kind: marketplace',
  'request:',
  '  urls:',
  '    - https://shopee.example/product/1/2',
  '    - "https://shopee.example/product/3/4"',
  'destination:',
  '  database: ${DATABASE_URL}',
  'schedule: { cron: "0 6 * * *", timezone: UTC }',
  'exports:',
  '  - format: csv',
  '    dir: ./out # where the files go',
  '    tables: [marketplace_products]',
  '',
].join('\n');

const PACKAGES: Record<string, Exercise> = {
  yaml: (m) => {
    m['parseDocument'](PROJECT_SAMPLE, { prettyErrors: false, uniqueKeys: true, merge: false }).toJS();
    m['parse'](PIPELINE_SAMPLE);
    const lc = new m['LineCounter']();
    m['parseDocument'](PIPELINE_SAMPLE, { lineCounter: lc, keepSourceTokens: true });
  },
  tinyglobby: (m) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-vendor-'));
    try {
      fs.mkdirSync(path.join(dir, 'pipelines', 'more'), { recursive: true });
      for (const f of ['pipelines/a.yaml', 'pipelines/more/b.yml', 'scrape-etl.yaml'])
        fs.writeFileSync(path.join(dir, f), 'x: 1\n');
      m['globSync'](['pipelines/**/*.{yaml,yml}'], {
        cwd: dir,
        absolute: true,
        ignore: ['**/node_modules/**', 'scrape-etl.yaml'],
      });
      m['isDynamicPattern']('pipelines/*.yaml');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
  commander: (m) => {
    const program = new m['Command']();
    program.name('scrape-etl').exitOverride().option('--json', 'JSON').version('1.0.0', '-V, --version');
    program
      .command('status')
      .argument('[pipeline]')
      .option('--database <url>', 'db')
      .addOption(new m['Option']('--format <f>').choices(['a', 'b']))
      .action(() => undefined);
    program.parse(['node', 'scrape-etl', 'status', 'shop', '--database', 'sqlite:x', '--format', 'a']);
    program.helpInformation();
  },
  // What settings/definition.ts builds at its load and what reading a few settings runs.
  'zod-mini': (z) => {
    const whole = z
      .pipe(z.string().check(z.regex(/^[0-9]+$/, 'a number')), z.transform(Number))
      .check(z.refine((n: number) => n > 0, 'positive'));
    whole.safeParse('25');
    whole.safeParse('x');
    z.enum(['json', 'slack']).safeParse('json');
    z.pipe(
      z.string(),
      z.transform((s: string) => s.split(',')),
    ).safeParse('a,b');
  },
};

/**
 * Built-in modules a package requires when it loads for what scrape-etl never asks of it, required at their first
 * use instead (scripts/lazy-modules.ts): commander runs executable subcommands with node:child_process (and with it
 * net, dgram and a dozen of Node's internal modules), and every command of scrape-etl is an action in the process.
 */
const LAZY_IN: Record<string, string[]> = { commander: ['node:child_process'] };

export interface VendorBundle {
  name: string;
  bytes: number;
  cacheBytes: number;
}

/** Builds every package of PACKAGES in `dir` (the compiled vendor/); returns what was written. */
export async function bundleVendorModules(dir: string): Promise<VendorBundle[]> {
  const out: VendorBundle[] = [];
  for (const [name, exercise] of Object.entries(PACKAGES)) {
    const reexport = path.join(dir, `${name}.js`);
    if (!fs.existsSync(reexport))
      throw new Error(`postbuild: no compiled vendor module ${reexport} (vendor/${name}.ts)`);
    const names = Object.keys((await import(pathToFileURL(reexport).href)) as object).sort();
    const result = await build({
      entryPoints: [reexport],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'warning',
      minifyWhitespace: true,
      minifySyntax: true,
      // ES modules inside (fdir's) read import.meta.url, which a CommonJS file has not: it is the bundle's own URL.
      define: { 'import.meta.url': '__bundleUrl' },
      banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
      plugins: [
        lazyModules(
          LAZY_IN[name] ?? [],
          (file) => file.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`),
          dir,
        ),
        withoutFdirPicomatchProbe,
      ],
    });
    const code = result.outputFiles[0]!.contents;
    writeAtomically(path.join(dir, `${name}.bundle.cjs`), code);
    const loaded = loadBundle(name, dir, false);
    const missing = names.filter((n) => !(n in loaded.exports));
    if (missing.length > 0) throw new Error(`postbuild: the bundle of ${name} lacks ${missing.join(', ')}`);
    exercise(loaded.exports);
    const cache = loaded.script.createCachedData();
    writeAtomically(path.join(dir, `${name}.bundle.cache`), cache);
    const wrapper =
      `// Built by scripts/vendor-bundles.ts from vendor/${name}.ts: ${name} from its one-file bundle, with V8's code cache.\n` +
      `import { loadBundle } from './load-bundle.js';\n` +
      `const m = loadBundle('${name}').exports;\n` +
      // Through local names: an export may be named by a reserved word (zod's `enum`).
      names.map((n, i) => `const v${i} = m['${n}'];\n`).join('') +
      `export { ${names.map((n, i) => `v${i} as ${n}`).join(', ')} };\n`;
    writeAtomically(reexport, Buffer.from(wrapper));
    fs.rmSync(`${reexport}.map`, { force: true });
    out.push({ name, bytes: code.length, cacheBytes: cache.length });
  }
  return out;
}

/** Written under another name and renamed, as the workflow bundle is: a command never reads half a file. */
export function writeAtomically(file: string, data: Uint8Array): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}
