// `${VAR}` and `${VAR:-default}` references in pipeline files, resolved against an environment object so tests
// and the CLI decide which environment applies.
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface Interpolated {
  value: string;
  /** Names referenced without a default and not set in the environment. */
  missing: string[];
  /** Every variable name referenced, set or not. */
  referenced: string[];
}

export function interpolate(text: string, env: NodeJS.ProcessEnv): Interpolated {
  const missing: string[] = [];
  const referenced: string[] = [];
  const value = text.replace(REFERENCE, (_whole, name: string, fallback: string | undefined) => {
    referenced.push(name);
    const set = env[name];
    // An empty variable counts as unset when a default is given, as in POSIX shells' `:-`.
    if (set !== undefined && (set !== '' || fallback === undefined)) return set;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return '';
  });
  return { value, missing, referenced };
}

export function hasReference(text: string): boolean {
  REFERENCE.lastIndex = 0;
  return REFERENCE.test(text);
}
