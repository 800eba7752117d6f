// Database URLs as shown to people (logs, memos, status): kept free of driver imports so anything may use it.

/** The URL with its password replaced by *** (SQLite URLs and password-less ones are returned as they are). */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}
