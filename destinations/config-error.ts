// The error of a destination that no retry can open (light: the adapters' URL parsers throw it).
/**
 * A destination that no retry can open: not a database, no permission, a wrong password, a database that does not
 * exist. Its message names the destination (password redacted) and the fix; callers fail at once instead of
 * retrying (a network error or a busy server is not one of these).
 */
export class DatabaseConfigError extends Error {
  override readonly name = 'DatabaseConfigError';
}
