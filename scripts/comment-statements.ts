// Prints the statements of a migration that writes the descriptions into a database (views, then comments), for
// the destination whose drizzle-kit migrations take them: `npx tsx scripts/comment-statements.ts postgres|sqlite`,
// after db/model/schema/descriptions.ts changes; `npx drizzle-kit generate --custom --config
// destinations/<engine>/drizzle.config.ts` makes the file they go in.
import { commentOn, modelComments, SQLITE_COMMENTS_DDL, sqliteCommentUpsert } from '../db/model/schema/comments.js';
import { VIEW_SQL } from '../db/model/schema/views.js';

// By the destination whose migrations (destinations/<engine>/migrations) take them: comments in the catalog, or the
// catalog table.
const forms: Record<string, () => string[]> = {
  postgres: () => [...Object.values(VIEW_SQL), ...modelComments().map(commentOn)],
  sqlite: () => [...Object.values(VIEW_SQL), SQLITE_COMMENTS_DDL, ...modelComments().map(sqliteCommentUpsert)],
};
const form = forms[process.argv[2] ?? ''];
if (!form) throw new Error('usage: npx tsx scripts/comment-statements.ts postgres|sqlite');
process.stdout.write(`${form().join(';\n--> statement-breakpoint\n')};\n`);
