#!/usr/bin/env node
// The package's command: the compiled JavaScript in dist/, which `npm run build` writes (`npm ci` runs it through
// the `prepare` script). No TypeScript loader is involved at run time.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write(
    `scrape-etl: ${fileURLToPath(main)} is missing; build it with \`npm run build\` (npm ci does it too)\n`,
  );
  process.exit(1);
}
await import(main.href);
