// How each destination's URL is written, for the light modules that only look at a URL (the pipeline and project
// file schemas, anchoring relative paths, the read-only commands, destination keys): no adapter and no driver is
// loaded here, so `scrape-etl status` and `--help` stay fast. The mapped type makes the compiler name a destination
// without its form; the adapters parse with the same prefixes (destinations/<name>/index.ts).
import { DatabaseConfigError } from './config-error.js';
import type { DestinationName } from './contract.js';
import { DESTINATION_NAMES } from './names.js';

export interface UrlForm {
  /** Matches the URL's scheme part (case-insensitive). */
  readonly prefix: RegExp;
  /** As messages show it. */
  readonly form: string;
  /** The rest of the URL is a file path (sqlite:<path>); else it is a server's URL. */
  readonly file: boolean;
}

export const URL_FORMS: { readonly [D in DestinationName]: UrlForm } = {
  sqlite: { prefix: /^sqlite:/i, form: 'sqlite:<path>', file: true },
  duckdb: { prefix: /^duckdb:/i, form: 'duckdb:<path>', file: true },
  postgres: { prefix: /^postgres(ql)?:\/\//i, form: 'postgres://user@host:port/db', file: false },
};

/** The destination a URL's scheme names, or undefined. */
export function destinationNameOfUrl(url: string): DestinationName | undefined {
  const trimmed = url.trim();
  return DESTINATION_NAMES.find((n) => URL_FORMS[n].prefix.test(trimmed));
}

/** A URL of a known scheme with something after it. */
export function isDatabaseUrl(url: string): boolean {
  const name = destinationNameOfUrl(url);
  return name !== undefined && url.trim().replace(URL_FORMS[name].prefix, '').trim() !== '';
}

/** For a file destination's URL: its scheme as written and the rest (the path, as written); undefined otherwise. */
export function fileUrlParts(url: string): { scheme: string; rest: string } | undefined {
  const trimmed = url.trim();
  const name = destinationNameOfUrl(trimmed);
  if (name === undefined || !URL_FORMS[name].file) return undefined;
  const scheme = URL_FORMS[name].prefix.exec(trimmed)![0];
  return { scheme: scheme.slice(0, -1), rest: trimmed.slice(scheme.length) };
}

/**
 * The path of a file destination's URL: `<scheme>:<path>`, and `<scheme>:///abs/path` or `<scheme>://rel/path` too;
 * undefined when the URL is not of that destination's scheme, a DatabaseConfigError when it names no path.
 */
export function filePathOfUrl(name: DestinationName, url: string): string | undefined {
  const trimmed = url.trim();
  const scheme = URL_FORMS[name].prefix.exec(trimmed);
  if (scheme === null) return undefined;
  let file = trimmed.slice(scheme[0].length);
  if (file.startsWith('//')) file = file.slice(2);
  if (file === '')
    throw new DatabaseConfigError(`database URL '${trimmed}' has no file path (expected ${URL_FORMS[name].form})`);
  return file;
}

/** "'sqlite:<path>', 'duckdb:<path>' or 'postgres://user@host:port/db'", for messages. */
export function urlFormsText(): string {
  const forms = DESTINATION_NAMES.map((n) => `'${URL_FORMS[n].form}'`);
  return `${forms.slice(0, -1).join(', ')} or ${forms[forms.length - 1]}`;
}
