// File names of exports: a template with {pipeline}, {table} and {timestamp}, or a fixed name.

export const DEFAULT_FILE_NAME = '{pipeline}_{table}_{timestamp}.csv';
const PLACEHOLDER = /\{([^}]*)\}/g;
const KNOWN = new Set(['pipeline', 'table', 'timestamp']);

/** A timestamp that sorts, has no characters file systems dislike, and keeps milliseconds so runs rarely collide. */
export function fileTimestamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, ''); // 20250102T030405.678Z
}

/** Throws an error naming the template and the fix when it cannot name every file of this export uniquely. */
export function validateFileNameTemplate(template: string, tableCount: number): void {
  if (template.trim() === '') throw new Error('export: file name template is empty (example: "{pipeline}_{table}_{timestamp}.csv")');
  for (const m of template.matchAll(PLACEHOLDER)) {
    if (!KNOWN.has(m[1]!)) {
      throw new Error(`export: file name template "${template}" has unknown placeholder {${m[1]}}; use {pipeline}, {table} or {timestamp}`);
    }
  }
  if (/[/\\\0]/.test(template)) {
    throw new Error(`export: file name template "${template}" contains a path separator; put the folder in the output directory instead`);
  }
  if (tableCount > 1 && !template.includes('{table}')) {
    throw new Error(
      `export: file name "${template}" would give all ${tableCount} tables the same file; add {table} to it or export one table`,
    );
  }
}

export function renderFileName(template: string, values: { pipeline: string; table: string; timestamp: string }): string {
  const name = template.replace(PLACEHOLDER, (_all, key: string) => values[key as keyof typeof values]);
  if (name === '.' || name === '..' || name.endsWith('.partial')) {
    throw new Error(`export: file name "${name}" (from template "${template}") is reserved; choose another`);
  }
  return name;
}
