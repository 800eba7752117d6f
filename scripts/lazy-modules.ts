// Deferred requires for the one-file bundles (scripts/cli-bundle.ts, scripts/vendor-bundles.ts). esbuild turns a
// module's `import { x } from 'pkg'` into `require('pkg')` run when the module itself first runs, so a module that
// imports a package for one rarely called function loads that package (and, for a built-in such as node:crypto,
// Node's own dozen internal modules behind it) in every command that loads the module: `schema show` paid for
// cron-parser and luxon because the catalog module computes schedule intervals, which `schema show` never asks for.
// A module named here is replaced, for the importers the plugin is given, by a stand-in whose properties are the
// module's own names as getters that require it on first use. The bundled code reads `ns.name` at each use (esbuild
// keeps named imports as property reads), so the first use loads the module and nothing else changes; a module that
// is never used is never loaded. bench/startup.ts prints what the read-only commands gain.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'esbuild';

const NAMESPACE = 'lazy-module';

/**
 * The stand-in's source. Its names are those the module has when the build runs; a module whose export is a
 * function or a class (called or constructed as the module itself), or that has no names, cannot be stood in for
 * and fails the build.
 */
function standIn(specifier: string, names: string[]): string {
  return (
    `let real;\n` +
    `const load = () => (real ??= require(${JSON.stringify(specifier)}));\n` +
    `for (const name of ${JSON.stringify(names)})\n` +
    `  Object.defineProperty(module.exports, name, { enumerable: true, get: () => load()[name] });\n`
  );
}

/**
 * Replaces `specifiers` by their stand-ins where a module matching `importers` (absolute paths) imports them.
 * `from` is where the modules are resolved at build time to read their names (the bundle's own place); inside the
 * stand-in the real `require` is resolved by the build's other rules (left external, or bundled in).
 */
export function lazyModules(specifiers: readonly string[], importers: (file: string) => boolean, from: string): Plugin {
  const req = createRequire(path.join(from, 'noop.js'));
  const names = new Map<string, string[]>();
  for (const spec of specifiers) {
    const m = req(spec) as unknown;
    if (typeof m !== 'object' || m === null)
      throw new Error(
        `scripts/lazy-modules.ts: '${spec}' exports a ${typeof m}, not an object of names: keep it eager`,
      );
    const own = Object.getOwnPropertyNames(m);
    if (own.length === 0) throw new Error(`scripts/lazy-modules.ts: '${spec}' has no names to stand in for`);
    names.set(spec, own);
  }
  return {
    name: 'lazy-modules',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.namespace === NAMESPACE || !names.has(args.path) || !importers(args.importer)) return undefined;
        return { path: args.path, namespace: NAMESPACE };
      });
      b.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: standIn(args.path, names.get(args.path)!),
        loader: 'js',
        // The stand-in's own require resolves from the bundle's place, as the importer's did.
        resolveDir: fs.realpathSync(from),
      }));
    },
  };
}
