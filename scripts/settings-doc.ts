// `npm run docs:settings`: writes docs/reference.md's configuration table from settings/definition.ts
// (settings/doc-table.ts). test/fast/settings/settings-doc.test.ts fails until it has been run after a change.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withSettingsTable } from '../settings/doc-table.js';

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'reference.md');
const before = fs.readFileSync(file, 'utf8');
const after = withSettingsTable(before, file);
if (after !== before) fs.writeFileSync(file, after);
process.stdout.write(
  `${path.relative(process.cwd(), file)}: ${after === before ? 'already current' : 'settings table written'}\n`,
);
