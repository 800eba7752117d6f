// The name of SQLite's catalog of comments (db/model/schema/comments.ts), alone in a module with no imports: the console
// and the export leave the table out of their lists, and they are imported on paths that comments.ts (through
// db/store/sql.ts and the destinations) is itself on.
export const SQLITE_COMMENTS_TABLE = 'scrape_etl_comments';
