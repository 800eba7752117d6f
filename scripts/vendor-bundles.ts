// The build step of vendor/ (vendor/README.md): each compiled re-export dist/vendor/<name>.js becomes one ESM bundle
// of the package it re-exports, written in place. esbuild turns the package's CommonJS into functions of the one
// file; the `require` of Node built-ins left inside them (yaml's `require("process")`) needs a real `require` in an
// ES module, which the banner makes with createRequire. Whitespace and syntax are minified (names kept, so class
// names in errors stay): a smaller file is parsed sooner (yaml's import 11.9 -> 10.6 ms here).
import fs from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const REQUIRE_BANNER = "import { createRequire as __vendorCreateRequire } from 'node:module';\nconst require = __vendorCreateRequire(import.meta.url);";

/**
 * fdir (tinyglobby's directory walker) probes for picomatch with a runtime `require` when it loads, for its own
 * `.glob()` helper, which tinyglobby never calls (it hands fdir its own matcher, bundled). Left in, the probe loads
 * picomatch's six CommonJS files a second time from node_modules at every start; the plugin cuts the probe out of
 * the bundle, and fails the build when fdir's code no longer has it, so an update is looked at rather than ignored.
 */
const FDIR_PICOMATCH_PROBE = /try \{\s*__require\.resolve\("picomatch"\);\s*pm = __require\("picomatch"\);\s*\} catch \{\}/;
const withoutFdirPicomatchProbe: Plugin = {
  name: 'without-fdir-picomatch-probe',
  setup(b) {
    b.onLoad({ filter: /[\\/]fdir[\\/]dist[\\/]index\.mjs$/ }, (args) => {
      const source = fs.readFileSync(args.path, 'utf8');
      if (!FDIR_PICOMATCH_PROBE.test(source)) {
        throw new Error(`${args.path}: fdir's picomatch probe is not where scripts/vendor-bundles.ts expects it; look at the new fdir and update the plugin`);
      }
      return { contents: source.replace(FDIR_PICOMATCH_PROBE, '/* picomatch probe cut by scripts/vendor-bundles.ts */'), loader: 'js' };
    });
  },
};

export interface VendorBundle {
  name: string;
  bytes: number;
}

/** Bundles every `.js` file of `dir` (the compiled vendor/) in place; returns what was written. */
export async function bundleVendorModules(dir: string): Promise<VendorBundle[]> {
  const entries = fs.readdirSync(dir).filter((f) => f.endsWith('.js')).sort();
  const out: VendorBundle[] = [];
  for (const entry of entries) {
    const file = path.join(dir, entry);
    const result = await build({
      entryPoints: [file],
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      // The compiled re-export's source map describes the file being replaced.
      sourcemap: false,
      banner: { js: REQUIRE_BANNER },
      minifyWhitespace: true,
      minifySyntax: true,
      plugins: [withoutFdirPicomatchProbe],
      logLevel: 'warning',
    });
    const code = result.outputFiles[0]!.contents;
    // Written under another name and renamed, as the workflow bundle is.
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, code);
    fs.renameSync(tmp, file);
    fs.rmSync(`${file}.map`, { force: true });
    out.push({ name: entry.replace(/\.js$/, ''), bytes: code.length });
  }
  if (out.length === 0) throw new Error(`postbuild: no compiled vendor modules in ${dir}`);
  return out;
}
