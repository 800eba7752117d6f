// Loads a vendor bundle built by `npm run build` (scripts/vendor-bundles.ts): dist/vendor/<name>.bundle.cjs, one
// CommonJS file holding the whole package, compiled with the V8 code cache the build wrote beside it
// (<name>.bundle.cache). The cache holds the bytecode of the functions a typical use ran at build time, so a command
// neither parses the package's source again nor compiles those functions lazily on their first call (yaml's load
// and first two parses: about 38 -> 21 ms of CPU). Node 22 caches compiled modules itself
// (module.enableCompileCache); Node 20, which this package supports, does not. A cache V8 rejects (another Node
// version, other V8 flags) costs nothing but the time it would have saved: the source is compiled as usual.
// Used only from dist/: from the sources the vendor modules are plain re-exports of the packages.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The CommonJS wrapper the bundle's code runs in, as Node's own loader wraps a module. */
const wrap = (code: string) => `(function (exports, require, module, __filename, __dirname) {${code}\n})`;

export interface LoadedBundle {
  exports: Record<string, unknown>;
  script: vm.Script;
  /** Whether V8 took the code cache (false: rejected or absent). */
  cached: boolean;
}

/** Runs the bundle of `name` from `dir` (default: this folder) with its code cache when there is one. */
export function loadBundle(name: string, dir = here, useCache = true): LoadedBundle {
  const filename = path.join(dir, `${name}.bundle.cjs`);
  const code = fs.readFileSync(filename, 'utf8');
  let cachedData: Buffer | undefined;
  if (useCache) {
    try {
      cachedData = fs.readFileSync(path.join(dir, `${name}.bundle.cache`));
    } catch {
      // No cache (a build that could not write one): compiled from source.
    }
  }
  const script = new vm.Script(wrap(code), { filename, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} as Record<string, unknown> };
  const fn = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: unknown, f: string, d: string) => void;
  fn(module.exports, createRequire(filename), module, filename, dir);
  return { exports: module.exports, script, cached: cachedData !== undefined && !script.cachedDataRejected };
}
