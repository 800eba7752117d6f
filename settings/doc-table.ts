// docs/reference.md's configuration table, made from the settings definition: `npm run docs:settings` writes it
// between the markers below, and test/fast/settings/settings-doc.test.ts fails when the file holds another.
import { SETTING_GROUPS, SETTINGS, type SettingDefinition, type SettingGroup } from './definition.js';

export const TABLE_BEGIN =
  '<!-- settings table: generated from settings/definition.ts by `npm run docs:settings`; do not edit -->';
export const TABLE_END = '<!-- end of the settings table -->';

/** A table cell: a `|` inside it would end the cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** The markdown of every setting, one table per group, in the definition's order. */
export function settingsTable(): string {
  const out: string[] = [];
  for (const [group, title] of Object.entries(SETTING_GROUPS) as Array<[SettingGroup, string]>) {
    const defs = Object.values(SETTINGS as Record<string, SettingDefinition<unknown>>).filter((d) => d.group === group);
    out.push(
      `**${title}**`,
      '',
      '| variable | flag | project key | default | meaning |',
      '| --- | --- | --- | --- | --- |',
    );
    for (const d of defs) {
      const flag = d.flag ? `\`${d.flag}\` (${(d.flagOf ?? []).map((c) => `\`${c}\``).join(', ')})` : '';
      const project = d.project ? `\`${d.project}\`` : '';
      out.push(`| \`${d.env}\` | ${cell(flag)} | ${project} | ${cell(d.defaultText)} | ${cell(d.description)} |`);
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}

/** `doc` with the text between its markers replaced by the table; an error when the markers are missing. */
export function withSettingsTable(doc: string, file: string): string {
  const begin = doc.indexOf(TABLE_BEGIN);
  const end = doc.indexOf(TABLE_END);
  if (begin < 0 || end < begin)
    throw new Error(
      `${file}: no settings table markers (${TABLE_BEGIN} … ${TABLE_END}); put them back where the table goes`,
    );
  return `${doc.slice(0, begin + TABLE_BEGIN.length)}\n\n${settingsTable()}\n\n${doc.slice(end)}`;
}
