#!/usr/bin/env node
// The package's command: the compiled JavaScript in dist/, which `npm run build` writes (`npm ci` runs it through
// the `prepare` script). No TypeScript loader is involved at run time. CommonJS (bin/package.json): it requires the
// launcher bundle the build made of cli/launch.ts, so a read-only command, whose bundle is CommonJS as well, starts
// without initializing Node's ES module loader; a dist/ without it (tsc's half of the build alone) runs the ES module
// entry instead.
'use strict';
const { existsSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const launcher = path.join(__dirname, '../dist/cli/launch.cjs');
const main = path.join(__dirname, '../dist/cli/main.js');
if (existsSync(launcher)) {
  require(launcher).launch(process.argv);
} else if (existsSync(main)) {
  import(pathToFileURL(main).href);
} else {
  process.stderr.write(`scrape-etl: ${main} is missing; build it with \`npm run build\` (npm ci does it too)\n`);
  process.exit(1);
}
