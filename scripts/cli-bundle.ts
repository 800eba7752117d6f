// The build step of the read-only bundles (cli/read-only-commands.ts), run by scripts/postbuild.ts after the vendor
// bundles. For each bundle of BUNDLES, from its compiled entry (dist/cli/<entry>.js):
//  1. esbuild bundles the entry's commands and every module of the product they import, statically or with
//     `import()`, into one CommonJS file, dist/cli/<name>.bundle.cjs. Module bodies run when first imported, as
//     they would unbundled (esbuild's lazy wrappers), so a command still loads only what its path needs. Pure
//     JavaScript packages that its commands load in numbers (`inlined`) go in too; every other package stays a
//     `require()` of node_modules at the point of use (native modules, the Temporal SDK, drivers), as the
//     product's `await import()` of it was;
//  2. the bundle is run in this process as a user runs its commands, in a sample project with a run recorded
//     (exercise below), and V8's code cache of it, which then holds the bytecode of every function those runs
//     compiled, is written beside it (<name>.bundle.cache), as for the vendor bundles (vendor/README.md).
// A module that finds files beside itself reads `import.meta.url`: in the bundle that is the URL its compiled file
// has in dist/, worked out from the bundle's own place, so migrations, examples and the vendor bundles are found
// where they are.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { loadBundle } from '../vendor/load-bundle.js';
import { lazyModules } from './lazy-modules.js';
import { writeAtomically } from './vendor-bundles.js';

interface BundleSpec {
  /** cli/read-only-commands.ts READ_ONLY_BUNDLES names it. */
  name: string;
  /** The compiled entry in dist/cli/, exporting `main(argv)`. */
  entry: string;
  /** Packages bundled in: plain JavaScript, many files each, loaded by the bundle's commands on their own path. */
  inlined: string[];
  /** The commands run once at build time, in the sample project, for the code cache. */
  exercise: string[][];
}

const BUNDLES: BundleSpec[] = [
  {
    name: 'read-only',
    entry: 'read-only-main.js',
    inlined: ['better-sqlite3'],
    exercise: [['status', 'shop'], ['history', 'shop'], ['schema', 'show', 'shop'], ['status']],
  },
  {
    name: 'pipelines',
    entry: 'pipelines-main.js',
    inlined: ['zod', 'cron-parser', 'luxon', 'better-sqlite3'],
    exercise: [['pipelines'], ['pipelines', '--json']],
  },
  {
    name: 'export',
    entry: 'export-main.js',
    inlined: [],
    // A table with rows (the sample run's), so that the cache holds the bytecode of the row path too.
    exercise: [
      ['export', '--tables', 'pipeline_runs', '--out', 'exported'],
      ['export', '--pipeline', 'shop', '--tables', 'pipeline_runs', '--since-last', '--out', 'exported'],
    ],
  },
];

/**
 * Modules the product imports at the top of modules the read-only commands load, for work those commands seldom or
 * never do: required at their first use instead of when the importing module runs (scripts/lazy-modules.ts).
 * node:crypto hashes names and lock owners (and loads about fifteen of Node's internal modules); cron-parser (with
 * luxon) computes schedules, which only a pipeline with a schedule needs; lossless-json reads numbers of scraped
 * content; fastest-levenshtein suggests a key for a misspelled one.
 */
const LAZY_MODULES = ['node:crypto', 'cron-parser', 'lossless-json', 'fastest-levenshtein'];

/**
 * better-sqlite3, bundled in (its dozen CommonJS files are otherwise looked up, read and compiled at every start),
 * finds its native addon with `bindings`, which takes the package's folder from the stack of its caller: from the
 * bundle that would be the product's folder. The plugin names the package's own folder instead, resolved where the
 * bundle runs, so `bindings` looks where it always looked; it fails the build when better-sqlite3's code no longer
 * has the call, so an update is looked at rather than broken.
 */
const BETTER_SQLITE3_ADDON = "require('bindings')('better_sqlite3.node')";
const betterSqlite3Addon: Plugin = {
  name: 'better-sqlite3-addon',
  setup(b) {
    // Resolved where the bundle runs (require.resolve), not bundled.
    b.onResolve({ filter: /^better-sqlite3\/package\.json$/ }, () => ({ external: true }));
    b.onLoad({ filter: /[\\/]better-sqlite3[\\/]lib[\\/]database\.js$/ }, (args) => {
      const source = fs.readFileSync(args.path, 'utf8');
      if (!source.includes(BETTER_SQLITE3_ADDON))
        throw new Error(
          `${args.path}: better-sqlite3 no longer loads its addon as scripts/cli-bundle.ts expects; look at the new version and update the plugin`,
        );
      return {
        contents: source.replace(
          BETTER_SQLITE3_ADDON,
          "require('bindings')({ bindings: 'better_sqlite3.node', module_root: require('node:path').dirname(require.resolve('better-sqlite3/package.json')) })",
        ),
        loader: 'js',
      };
    });
  },
};

/**
 * zod's `locales` namespace with English alone. zod words its issues in English unless a program configures another
 * locale, and the product configures none: the pipeline loader words its own messages (pipelines/loader.ts) and
 * falls back on zod's English ones. Every other locale (forty-odd modules, a quarter of the pipelines bundle's
 * source) ran at zod's import in every `scrape-etl pipelines` and was never read. The build fails if a product
 * module names zod's locales or its configuration, so a program that would want them is not silently given English.
 */
const ZOD_LOCALES = /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/;
const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(b) {
    b.onLoad({ filter: ZOD_LOCALES }, (args) => ({
      contents: "export { default as en } from './en.js';\n",
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};
/** What a product module would write to read or set zod's locale. */
const ZOD_LOCALE_USE = /\bz\.(locales|config)\b|from 'zod\/(v4\/)?locales/;

/** The process event a bundled module emits with its URL when it runs (test/support/module-trace.mjs listens). */
export const MODULE_RAN_EVENT = 'scrape-etl:module-ran';

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * Product modules (dist/**) get their own `import.meta.url` and `import.meta.resolve`; other uses of
 * `import.meta` have no meaning in a CommonJS bundle and fail the build. Packages are bundled in (the bundle's `inlined`, and what
 * they import) or left to `require()`.
 */
function productModules(dist: string, outDir: string, inlined: ReadonlySet<string>): Plugin {
  return {
    name: 'read-only-bundle',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:')) return { external: true };
        if (args.importer.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        return inlined.has(packageOf(args.path)) ? undefined : { external: true };
      });
      b.onLoad({ filter: /\.js$/ }, (args) => {
        if (!args.path.startsWith(dist + path.sep) || args.path.includes(`${path.sep}node_modules${path.sep}`))
          return undefined;
        const rel = JSON.stringify(path.relative(outDir, args.path).split(path.sep).join('/'));
        const source = `__moduleRan(${rel});\n${fs.readFileSync(args.path, 'utf8')}`
          .replaceAll('import.meta.url', `__moduleUrl(${rel})`)
          .replaceAll('import.meta.resolve(', '__metaResolve(');
        if (ZOD_LOCALE_USE.test(source))
          throw new Error(
            `${args.path}: names zod's locales or configuration, which the bundles hold in English only (scripts/cli-bundle.ts, zodEnglishOnly)`,
          );
        const rest = /import\.meta\b/.exec(source);
        if (rest)
          throw new Error(
            `${args.path}: import.meta beyond .url and .resolve() cannot be bundled (scripts/cli-bundle.ts)`,
          );
        return { contents: source, loader: 'js' };
      });
    },
  };
}

/**
 * Every package the bundle leaves to `require()` must be loadable so on every Node this package supports (a
 * package that is an ES module only is `import()`ed by the product and would need Node 20.19's require of ES
 * modules): the build fails naming it, rather than a command failing at a user's.
 */
function checkRequirable(bundleFile: string, externals: string[]): void {
  const req = createRequire(bundleFile);
  for (const spec of externals) {
    let resolved: string;
    try {
      resolved = req.resolve(spec);
    } catch (err) {
      throw new Error(`read-only bundle: '${spec}' cannot be required from ${bundleFile}: ${(err as Error).message}`);
    }
    if (!path.isAbsolute(resolved)) continue; // a built-in module
    let esm = resolved.endsWith('.mjs');
    if (resolved.endsWith('.js')) {
      for (let dir = path.dirname(resolved); dir !== path.dirname(dir); dir = path.dirname(dir)) {
        const pkg = path.join(dir, 'package.json');
        if (!fs.existsSync(pkg)) continue;
        esm = (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { type?: string }).type === 'module';
        break;
      }
    }
    if (esm)
      throw new Error(
        `read-only bundle: '${spec}' is an ES module only (${resolved}); add it to the bundle's inlined packages in scripts/cli-bundle.ts or keep it off the read-only commands' path`,
      );
  }
}

/**
 * esbuild's `__toESM`, called where a bundled module imports a module left to `require()` (node:fs, node:path, a
 * package): each call copies the module's names onto a new namespace object as getters, about a hundred for node:fs,
 * and a command's modules import node:fs and node:path dozens of times between them, each import a copy made at
 * start. Made once per module object instead (and per mode: with or without `default` as the module itself), as an ES
 * module has one namespace: each was only a view of the same module. The build fails when esbuild's helper is no
 * longer the one expected, so that an update of esbuild is looked at rather than left unmemoized.
 */
const TO_ESM = 'var __toESM=(mod,isNodeMode,target)=>(';
const TO_ESM_ONCE =
  'var __toESMViews=[new WeakMap,new WeakMap],__toESM=(mod,isNodeMode)=>{if(mod==null||typeof mod!="object"&&typeof mod!="function")return __toESMNew(mod,isNodeMode);const views=__toESMViews[isNodeMode?1:0];let v=views.get(mod);return v===void 0&&views.set(mod,v=__toESMNew(mod,isNodeMode)),v},__toESMNew=(mod,isNodeMode,target)=>(';

function namespacesOnce(code: string, file: string): string {
  const at = code.indexOf(TO_ESM);
  if (at < 0 || code.indexOf(TO_ESM, at + 1) >= 0)
    throw new Error(
      `${file}: esbuild's __toESM is not written as scripts/cli-bundle.ts expects (${TO_ESM}); look at the new esbuild and update namespacesOnce`,
    );
  return code.slice(0, at) + TO_ESM_ONCE + code.slice(at + TO_ESM.length);
}

export interface CliBundle {
  name: string;
  bytes: number;
  cacheBytes: number;
  modules: number;
}

/** Builds every bundle of BUNDLES into `dist`/cli from the compiled `dist`; returns what was written. */
export async function bundleReadOnlyCommands(dist: string): Promise<CliBundle[]> {
  const out: CliBundle[] = [];
  for (const spec of BUNDLES) out.push(await bundleOne(dist, spec));
  await bundleLauncher(dist);
  return out;
}

/**
 * Product modules in a CommonJS bundle: each sees its own dist/ URL as `import.meta.url`, and says when it runs.
 * `__dirname` is the bundle's folder, dist/cli.
 */
const BANNER =
  "const __moduleUrl = (rel) => require('node:url').pathToFileURL(require('node:path').join(__dirname, rel)).href;" +
  "const __metaResolve = (spec) => require('node:url').pathToFileURL(require.resolve(spec)).href;" +
  // Node's loader hooks see the bundle as one file: a module that runs says so, for whoever traces the
  // modules a command loads (test/support/module-trace.mjs), as the hooks would have seen it unbundled.
  `const __moduleRan = (rel) => { if (process.listenerCount('${MODULE_RAN_EVENT}') > 0) process.emit('${MODULE_RAN_EVENT}', __moduleUrl(rel)); };`;

/** The whole program's modules, which the launcher imports as ES modules when no bundle runs the command. */
const WHOLE_PROGRAM = /^\.\/(run-cli|command-modules)\.js$/;

/** What every bundle of the command is: one CommonJS file for the Node the package requires. */
const CJS_FOR_NODE = { bundle: true, format: 'cjs', platform: 'node', target: 'node20' } as const;

/**
 * dist/cli/launch.cjs: cli/launch.ts with what it imports (which bundle runs a command, and the loader of the
 * bundles), as CommonJS, which bin/scrape-etl.js requires. A read-only command then runs without Node's ES module
 * loader, whose start-up every ES module entry pays; the whole program stays ES modules, imported by the launcher
 * when no bundle runs the command. Small: no code cache.
 */
async function bundleLauncher(dist: string): Promise<void> {
  const outDir = path.join(dist, 'cli');
  const entry = path.join(outDir, 'launch.js');
  if (!fs.existsSync(entry)) throw new Error(`postbuild: no compiled ${entry} (cli/launch.ts)`);
  const wholeProgram: Plugin = {
    name: 'whole-program-external',
    setup(b) {
      b.onResolve({ filter: WHOLE_PROGRAM }, (args) =>
        args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
      );
    },
  };
  const result = await build({
    entryPoints: [entry],
    ...CJS_FOR_NODE,
    write: false,
    metafile: true,
    logLevel: 'warning',
    banner: { js: BANNER },
    plugins: [wholeProgram, productModules(dist, outDir, new Set())],
  });
  const externals = Object.values(result.metafile.outputs).flatMap((o) =>
    o.imports.filter((i) => i.external && !i.path.startsWith('node:')).map((i) => i.path),
  );
  const unexpected = externals.filter((p) => !WHOLE_PROGRAM.test(p));
  if (unexpected.length > 0)
    throw new Error(
      `postbuild: the launcher (cli/launch.ts) would require ${unexpected.join(', ')}; it loads no package`,
    );
  writeAtomically(path.join(outDir, 'launch.cjs'), result.outputFiles[0]!.contents);
}

async function bundleOne(dist: string, spec: BundleSpec): Promise<CliBundle> {
  const outDir = path.join(dist, 'cli');
  const entry = path.join(outDir, spec.entry);
  if (!fs.existsSync(entry))
    throw new Error(`postbuild: no compiled ${entry} (cli/${spec.entry.replace(/js$/, 'ts')})`);
  const outfile = path.join(outDir, `${spec.name}.bundle.cjs`);
  const result = await build({
    entryPoints: [entry],
    ...CJS_FOR_NODE,
    // `import()` inside a vm.Script needs a flag on Node 20: the product's `await import()` becomes a lazy require.
    supported: { 'dynamic-import': false },
    write: false,
    metafile: true,
    logLevel: 'warning',
    minifyWhitespace: true,
    minifySyntax: true,
    banner: { js: BANNER },
    plugins: [
      // First: it takes these imports of the product's modules before the next plugin leaves them external.
      lazyModules(
        LAZY_MODULES,
        (file) => file.startsWith(dist + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`),
        outDir,
      ),
      productModules(dist, outDir, new Set(spec.inlined)),
      betterSqlite3Addon,
      zodEnglishOnly,
    ],
  });
  const externals = new Set<string>();
  for (const o of Object.values(result.metafile.outputs))
    for (const imp of o.imports) if (imp.external && !imp.path.startsWith('node:')) externals.add(imp.path);
  checkRequirable(outfile, [...externals].sort());
  const code = Buffer.from(namespacesOnce(result.outputFiles[0]!.text, outfile));
  writeAtomically(outfile, code);
  const loaded = loadBundle(spec.name, outDir, false);
  if (typeof loaded.exports['main'] !== 'function') throw new Error(`postbuild: ${outfile} exports no main`);
  await exercise(dist, loaded.exports['main'] as (argv: string[]) => Promise<void>, spec.exercise);
  const cache = loaded.script.createCachedData();
  writeAtomically(path.join(outDir, `${spec.name}.bundle.cache`), cache);
  return {
    name: spec.name,
    bytes: code.length,
    cacheBytes: cache.length,
    modules: Object.keys(result.metafile.inputs).length,
  };
}

/** Thrown by the stand-in for process.exit while the commands are exercised: ends the command, not the build. */
class ExitCalled extends Error {}

/**
 * Runs each read-only command once in a sample project whose database holds a finished run, in this process, with
 * output and process.exit held back and the environment, the working folder and the exit code restored after.
 */
async function exercise(dist: string, main: (argv: string[]) => Promise<void>, commands: string[][]): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-cli-bundle-'));
  const env = { ...process.env };
  const cwd = process.cwd();
  const exitCode = process.exitCode;
  const { exit } = process;
  const writes = { out: process.stdout.write, err: process.stderr.write };
  try {
    fs.mkdirSync(path.join(dir, 'pipelines'));
    fs.mkdirSync(path.join(dir, 'data'));
    const database = `sqlite:${path.join(dir, 'data', 'shop.sqlite')}`;
    fs.writeFileSync(
      path.join(dir, 'scrape-etl.yaml'),
      'pipelines: [pipelines/*.yaml]\ndestination: sqlite:data/shop.sqlite\n',
    );
    const example = fs.readFileSync(path.join(dist, 'pipelines', 'examples', 'job-board.yaml'), 'utf8');
    fs.writeFileSync(path.join(dir, 'pipelines', 'shop.yaml'), example.replace(/^name: .*$/m, 'name: shop'));
    await recordRun(dist, database);
    for (const k of Object.keys(process.env))
      if (k.startsWith('SCRAPE_ETL_') || k === 'DATABASE_URL') delete process.env[k];
    process.chdir(dir);
    process.exit = ((code?: number) => {
      throw new ExitCalled(`exit ${code ?? 0}`);
    }) as typeof process.exit;
    process.stdout.write = (() => true) as typeof process.stdout.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    for (const args of commands) {
      try {
        await main(['node', 'scrape-etl', ...args]);
      } catch (err) {
        if (!(err instanceof ExitCalled)) throw err;
      }
    }
  } finally {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
    process.exit = exit;
    process.exitCode = exitCode;
    process.chdir(cwd);
    for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
    Object.assign(process.env, env);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A finished run of `shop` in a new database, through the compiled product's own functions. */
async function recordRun(dist: string, url: string): Promise<void> {
  const at = (p: string) => pathToFileURL(path.join(dist, p)).href;
  const { openDatabase } = (await import(at('destinations/open.js'))) as typeof import('../destinations/open.js');
  const runs = (await import(at('db/store/pipeline-runs.js'))) as typeof import('../db/store/pipeline-runs.js');
  const db = await openDatabase(url);
  try {
    const workflowId = 'cli-bundle-exercise';
    await runs.startPipelineRun(db, { workflowId, pipeline: 'shop', kind: 'job-board' });
    await runs.finishPipelineRun(db, {
      workflowId,
      status: 'succeeded',
      rowsByTable: { job_records: 3 },
      seenByTable: { job_records: 3 },
      tokenUsage: 12,
    });
  } finally {
    await db.close();
  }
}
