// File names of exports: a template with {pipeline}, {table} and {timestamp}, or a fixed name.
import { basename, dirname, resolve } from 'node:path';
import { FORMAT_EXTENSIONS, type ExportFormat } from './formats/index.js';

/** The default template of a format: its extension follows the format. */
export function defaultFileName(format: ExportFormat): string {
  return `{pipeline}_{table}_{timestamp}.${FORMAT_EXTENSIONS[format]}`;
}

export const DEFAULT_FILE_NAME = defaultFileName('csv');
const PLACEHOLDER = /\{([^}]*)\}/g;
const KNOWN = new Set(['pipeline', 'table', 'timestamp']);

/** A timestamp that sorts, has no characters file systems dislike, and keeps milliseconds so runs rarely collide. */
export function fileTimestamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, ''); // 20250102T030405.678Z
}

/** Throws an error naming the template and the fix when it cannot name every file of this export uniquely. */
export function validateFileNameTemplate(template: string, tableCount: number): void {
  if (template.trim() === '')
    throw new Error('export: file name template is empty (example: "{pipeline}_{table}_{timestamp}.csv")');
  for (const m of template.matchAll(PLACEHOLDER)) {
    if (!KNOWN.has(m[1]!)) {
      throw new Error(
        `export: file name template "${template}" has unknown placeholder {${m[1]}}; use {pipeline}, {table} or {timestamp}`,
      );
    }
  }
  if (/[/\\\0]/.test(template)) {
    throw new Error(
      `export: file name template "${template}" contains a path separator; put the folder in the output directory instead`,
    );
  }
  if (tableCount > 1 && !template.includes('{table}')) {
    throw new Error(
      `export: file name "${template}" would give all ${tableCount} tables the same file; add {table} to it or export one table`,
    );
  }
}

const OUTSIDE_HINT = 'export files are written only directly inside the output directory';

/**
 * Why `value` cannot be part of a file name, or undefined when it can. Pipeline and table names come from the
 * command line and from the database (a quoted SQL identifier may hold anything), so a value with a path
 * separator, a control character or nothing but dots could otherwise point the file elsewhere.
 */
function namePartProblem(value: string): string | undefined {
  if (/[/\\]/.test(value)) return 'it contains a path separator';
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'it contains a control character (NUL, line break, ...)';
  if (value === '.' || value === '..') return 'it names a directory';
  return undefined;
}

export function renderFileName(
  template: string,
  values: { pipeline: string; table: string; timestamp: string },
): string {
  const name = template.replace(PLACEHOLDER, (_all, key: string) => {
    const value = values[key as keyof typeof values];
    const problem = namePartProblem(value);
    if (problem !== undefined) {
      throw new Error(
        `export: ${key} ${JSON.stringify(value)} cannot be used in a file name: ${problem}; ${OUTSIDE_HINT}`,
      );
    }
    return value;
  });
  const problem = namePartProblem(name);
  if (problem !== undefined) {
    throw new Error(
      `export: file name ${JSON.stringify(name)} (from template "${template}") cannot be used: ${problem}; ${OUTSIDE_HINT}`,
    );
  }
  if (name.endsWith('.partial')) {
    throw new Error(`export: file name "${name}" (from template "${template}") is reserved; choose another`);
  }
  return name;
}

/**
 * The absolute path of `fileName` in `outDir`, checked to be a direct child of it: the last line of defence,
 * whatever a future placeholder or template rule lets through.
 */
export function pathInside(outDir: string, fileName: string): string {
  const dir = resolve(outDir);
  const target = resolve(dir, fileName);
  if (dirname(target) !== dir || basename(target) !== fileName) {
    throw new Error(
      `export: file name ${JSON.stringify(fileName)} would be written to ${target}, outside ${dir}; ${OUTSIDE_HINT}`,
    );
  }
  return target;
}
