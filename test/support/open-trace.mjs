// Preloaded with `NODE_OPTIONS=--import=<this file>` (test/integration/db/db-load-inputs.test.ts): records every file
// the process opens with fs.openSync, one path a line, in the file named by SCRAPE_ETL_OPEN_TRACE when the process
// exits, so a test can count how often a command reads each of its input files.
import fs from 'node:fs';

const file = process.env.SCRAPE_ETL_OPEN_TRACE;
if (file) {
  const opened = [];
  const openSync = fs.openSync;
  fs.openSync = function tracedOpenSync(p, ...rest) {
    opened.push(String(p));
    return openSync.call(this, p, ...rest);
  };
  process.on('exit', () => fs.writeFileSync(file, opened.map((p) => `${p}\n`).join('')));
}
