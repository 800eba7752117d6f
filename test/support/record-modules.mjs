// Preloaded into a command (NODE_OPTIONS=--import <this file>) to record every module it loads into
// $RECORD_MODULES_FILE, one URL or path a line: ES modules through a load hook (entry files of CommonJS packages
// imported from ESM included), and at exit every CommonJS module in the require cache (what those packages
// required in turn). A test reads the list to assert what a command did not load.
import fs from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.RECORD_MODULES_FILE;
if (file) {
  register('./record-modules-hooks.mjs', import.meta.url);
  const require = createRequire(import.meta.url);
  process.on('exit', () => {
    fs.appendFileSync(
      file,
      `${Object.keys(require.cache)
        .map((p) => `cjs:${p}`)
        .join('\n')}\n`,
    );
  });
}
