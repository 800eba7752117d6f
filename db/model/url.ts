// Database URLs as shown to people (logs, memos, status): kept free of driver imports so anything may use it.
import path from 'node:path';
import { destinationNameOfUrl, fileUrlParts, URL_FORMS } from '../../destinations/url-forms.js';

/** The URL with its password replaced by *** (SQLite URLs and password-less ones are returned as they are). */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}

/**
 * One spelling per destination, for telling runs of one database from another's (the ScrapeEtlDestination search
 * attribute and memo of a run, and `status` filtering by them): a SQLite URL becomes `sqlite:` and the file's
 * absolute path (relative paths resolved against `cwd`: the process that opens them), `sqlite:///a` and
 * `sqlite:/a` alike (a DuckDB URL likewise, as `duckdb:` and the path); a Postgres URL is trimmed, its scheme written `postgres://` and its password redacted.
 */
export function destinationKey(url: string, cwd: string = process.cwd()): string {
  const trimmed = url.trim();
  const parts = fileUrlParts(trimmed);
  if (parts !== undefined) {
    const fileScheme = parts.scheme.toLowerCase();
    let file = parts.rest;
    if (file.startsWith('//')) file = file.slice(2);
    if (file === '' || file === ':memory:') return `${fileScheme}:${file}`;
    return `${fileScheme}:${path.resolve(cwd, file)}`;
  }
  // A server's URL with its scheme in one spelling (postgresql:// and POSTGRES:// as postgres://).
  const server = destinationNameOfUrl(trimmed);
  return redactDatabaseUrl(server === undefined ? trimmed : trimmed.replace(URL_FORMS[server].prefix, `${server}://`));
}
