// The descriptions (descriptions.ts) as the database carries them: Postgres and DuckDB `COMMENT ON`, SQLite (which
// has no comments) rows of the catalog table scrape_etl_comments. The migrations write them (SQLite and Postgres:
// the custom migration `warehouse_docs`, whose statements are this module's output; DuckDB: ddl.ts), and schema
// evolution writes the comment of every column and table it adds (db/store/evolve/registry.ts).
// `npx tsx scripts/comment-statements.ts postgres|sqlite` prints the statements of such a migration (views, then
// comments) after the descriptions change;
// test/integration/db/db-comments.test.ts fails while a database's comments differ from the descriptions.
import { quoteIdent } from '../../../lib/quote-ident.js';
import { TABLE_DOCS, VIEW_DOCS } from './descriptions.js';
import { VIEW_SQL } from './views.js';
import { SQLITE_COMMENTS_TABLE } from './comments-table.js';

/** SQLite's catalog of comments: column_name '' holds the table's own comment. */
export { SQLITE_COMMENTS_TABLE };

export interface Comment {
  table: string;
  /** undefined: the table's (or view's) own comment. */
  column?: string;
  comment: string;
  view?: true;
}

/** Every comment of the model's tables and views, tables first, each table's own before its columns. */
export function modelComments(): Comment[] {
  const out: Comment[] = [];
  for (const [table, doc] of Object.entries(TABLE_DOCS)) {
    out.push({ table, comment: doc.description });
    for (const [column, comment] of Object.entries(doc.columns as Record<string, string>))
      out.push({ table, column, comment });
  }
  for (const [table, doc] of Object.entries(VIEW_DOCS)) {
    out.push({ table, comment: doc.description, view: true });
    for (const [column, comment] of Object.entries(doc.columns)) out.push({ table, column, comment, view: true });
  }
  return out;
}

export const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** `COMMENT ON` of one table, view or column, as Postgres and DuckDB both take it. */
export function commentOn(c: Comment): string {
  if (c.column === undefined)
    return `COMMENT ON ${c.view ? 'VIEW' : 'TABLE'} ${quoteIdent(c.table)} IS ${sqlString(c.comment)}`;
  return `COMMENT ON COLUMN ${quoteIdent(c.table)}.${quoteIdent(c.column)} IS ${sqlString(c.comment)}`;
}

/** The row of scrape_etl_comments holding one comment (written again when it changes). */
export function sqliteCommentUpsert(c: Comment): string {
  return `INSERT INTO ${quoteIdent(SQLITE_COMMENTS_TABLE)} (table_name, column_name, comment) VALUES (${sqlString(c.table)}, ${sqlString(c.column ?? '')}, ${sqlString(c.comment)}) ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment`;
}

export const SQLITE_COMMENTS_DDL = `CREATE TABLE IF NOT EXISTS ${quoteIdent(SQLITE_COMMENTS_TABLE)} (table_name text NOT NULL, column_name text NOT NULL, comment text NOT NULL, PRIMARY KEY (table_name, column_name))`;

/** A column schema evolution added: the content key it holds (or what it is) and its logical type. */
export function evolvedColumnComment(o: {
  column: string;
  type: string;
  change: string;
  variantOf?: string | null | undefined;
  key?: unknown;
}): string {
  const k = o.key as unknown;
  if (o.change === 'add_variant')
    return `Values of ${o.variantOf ?? 'another column'} that did not fit its type, as ${o.type}. Added by schema evolution.`;
  if (Array.isArray(k) && k.length > 0)
    return `Content key ${k.map((p) => JSON.stringify(p)).join('.')} (${o.type}). Added by schema evolution.`;
  if (Array.isArray(k)) return `The list element itself (${o.type}). Added by schema evolution.`;
  if (k !== null && typeof k === 'object' && (k as { overflow?: unknown }).overflow === true) {
    return "JSON of the fields past the table's column budget. Added by schema evolution.";
  }
  return `Added by schema evolution (${o.type}).`;
}

/** The comment of an inferred content table: its root (`<pipeline>_items`) or a nested list of it. */
export function contentTableComment(pipeline: string, listPaths: unknown): string {
  const paths = Array.isArray(listPaths) ? (listPaths as unknown[][]) : [];
  if (paths.length === 0) {
    return `Result content of pipeline ${pipeline}, flattened: one row per result (or per merge key value), columns inferred from the content's keys (schema_history).`;
  }
  return `A nested list in the result content of pipeline ${pipeline}: one row per element of ${paths.map((p) => p.join('.')).join(' > ')}.`;
}

/** The SQL that writes comments: COMMENT ON where the destination has it, else rows of scrape_etl_comments. */
export function commentStatements(comments: readonly Comment[], commentOnSupported: boolean): string[] {
  if (commentOnSupported) return comments.map(commentOn);
  const out: string[] = [];
  // Multi-row, as the history rows: a wide first batch describes a thousand columns.
  for (let i = 0; i < comments.length; i += 200) {
    const part = comments.slice(i, i + 200);
    out.push(
      `INSERT INTO ${quoteIdent(SQLITE_COMMENTS_TABLE)} (table_name, column_name, comment) VALUES ${part
        .map((c) => `(${sqlString(c.table)}, ${sqlString(c.column ?? '')}, ${sqlString(c.comment)})`)
        .join(', ')} ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment`,
    );
  }
  return out;
}
