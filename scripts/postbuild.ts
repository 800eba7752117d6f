// Second half of `npm run build`, run as dist/scripts/postbuild.js once tsc has compiled the sources:
//  1. copies every non-TypeScript file of the compiled folders (destinations/<engine>/migrations/**, pipelines/examples/*,
//     pipelines/pipeline.schema.json, ...) to the same place under dist/, so code that finds its files
//     relative to its own module (`import.meta.url`) finds them from dist/ exactly as from the sources, and an
//     asset added later is copied without a change here;
//  2. bundles the workflow code from the compiled dist/workflows/index.js into dist/workflow-bundle.js, which
//     compiled workers load instead of bundling at every start;
//  3. replaces each compiled re-export of vendor/ by one bundle of its package (vendor/README.md), so a quick
//     command loads one file for yaml, tinyglobby or commander instead of their dozens of CommonJS modules;
//  4. bundles the read-only commands (status, history, schema show, pipelines) with what they import into
//     dist/cli/read-only.bundle.cjs and pipelines.bundle.cjs with code caches (scripts/cli-bundle.ts), which
//     cli/launch.ts runs for them; and the launcher dist/cli/launch.cjs, which bin/scrape-etl.js requires.
import fs from 'node:fs';
import { bundleVendorModules } from './vendor-bundles.js';
import { bundleReadOnlyCommands } from './cli-bundle.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  PREBUILT_BUNDLE_PATH,
  RUNNING_FROM_SOURCE,
  WORKFLOWS_PATH,
  bundleWorkflows,
} from '../temporal/workflow-bundle.js';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(dist, '..');

if (RUNNING_FROM_SOURCE) throw new Error('scripts/postbuild.ts runs compiled: node dist/scripts/postbuild.js');

// Documentation stays in the repository; everything else beside the sources may be read at run time.
const NOT_COPIED = /\.(ts|mts|cts|md)$/;

let copied = 0;
for (const entry of fs.readdirSync(dist, { withFileTypes: true })) {
  const from = path.join(root, entry.name);
  if (!entry.isDirectory() || !fs.existsSync(from)) continue;
  fs.cpSync(from, path.join(dist, entry.name), {
    recursive: true,
    filter: (src) => {
      if (fs.statSync(src).isDirectory()) return true;
      if (NOT_COPIED.test(src)) return false;
      copied++;
      return true;
    },
  });
}

const vendor = await bundleVendorModules(path.join(dist, 'vendor'));
// After the vendor bundles: the read-only bundle takes their compiled loaders in, not the packages' re-exports.
const readOnly = await bundleReadOnlyCommands(dist);

const started = Date.now();
const { code } = await bundleWorkflows(WORKFLOWS_PATH);
// Written under another name and renamed, so a worker never reads a half-written bundle.
const tmp = `${PREBUILT_BUNDLE_PATH}.${process.pid}.tmp`;
fs.writeFileSync(tmp, code);
fs.renameSync(tmp, PREBUILT_BUNDLE_PATH);
process.stdout.write(
  `postbuild: ${copied} asset file(s) copied into ${path.relative(root, dist)}/; workflow bundle ${path.relative(root, PREBUILT_BUNDLE_PATH)} ` +
    `(${Math.round(code.length / 1024)} KiB) in ${((Date.now() - started) / 1000).toFixed(1)} s; vendor bundles: ${vendor.map((v) => `${v.name} ${Math.round(v.bytes / 1024)} KiB (code cache ${Math.round(v.cacheBytes / 1024)} KiB)`).join(', ')}; ` +
    `read-only bundles: ${readOnly.map((b) => `${b.name} ${b.modules} modules in ${Math.round(b.bytes / 1024)} KiB (code cache ${Math.round(b.cacheBytes / 1024)} KiB)`).join(', ')}\n`,
);
