// SQL identifier quoting in a module with no imports, so an export thread (export/csv-thread.ts) can load it without
// the destination registry behind export/database.ts (every adapter's modules: about 2 MB of each thread's memory).

/** Double-quotes an identifier for any dialect (all three follow the SQL standard here). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
