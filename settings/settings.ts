// The settings object: every setting of settings/definition.ts read from its sources with the one precedence of the
// README, command flag > environment variable > project file > built-in default. A variable set even to empty wins
// over the file (that is how one command overrides it) and then means the built-in default. Built once by an entry
// point (settings/process.ts) and handed down; tests build their own from an explicit environment.
// A value is checked when it is first read, not when the object is built, so a malformed setting fails the command
// that uses it (naming where it came from and how to fix it) and not every other command.
import { SETTINGS, type SettingDefinition, type SettingKey, type SettingValue } from './definition.js';

/** An environment: the process's, a child's, or a test's. */
export type Env = Readonly<Record<string, string | undefined>>;

/** What a project file sets, by environment variable (cli/project.ts): its values, paths already made absolute. */
export interface ProjectLayer {
  file: string;
  settings: Readonly<Record<string, string>>;
}

export interface SettingSources {
  env: Env;
  project?: ProjectLayer | undefined;
  /** Values of command flags (as typed), for the settings that have one. */
  flags?: Partial<Record<SettingKey, string | undefined>>;
}

export type SettingOrigin = 'flag' | 'environment' | 'project' | 'default';

/** A malformed setting: the caller's to fix, like a wrong option (exit 2). */
export class SettingError extends Error {
  override readonly name = 'SettingError';
  readonly exitCode = 2;
  constructor(
    readonly setting: SettingKey,
    message: string,
  ) {
    super(message);
  }
}

export type SettingValues = { readonly [K in SettingKey]: SettingValue<K> };

export interface Settings extends SettingValues {
  /**
   * The environment the settings were read from, with the project file's values filled in where it has none (and
   * SCRAPE_ETL_PROJECT naming that file): what `${VAR}` in pipeline files and webhook URLs is expanded against, and
   * what a child process the product spawns is given.
   */
  readonly env: Env;
  /** Where a setting's value comes from. */
  originOf(key: SettingKey): SettingOrigin;
  /** The same sources with these flags over them (a command's own options). */
  withFlags(flags: Partial<Record<SettingKey, string | undefined>>): Settings;
  /** The same sources with these environment variables replaced (undefined removes one), e.g. `demo`'s simulator. */
  withEnv(vars: Record<string, string | undefined>): Settings;
}

const KEYS = Object.keys(SETTINGS) as SettingKey[];
const PROJECT_ENV = SETTINGS.project.env;

interface Raw {
  origin: SettingOrigin;
  text: string | undefined;
}

function rawOf(def: SettingDefinition<unknown>, key: SettingKey, sources: SettingSources): Raw {
  const flag = sources.flags?.[key];
  if (flag !== undefined) return { origin: 'flag', text: flag };
  const env = sources.env[def.env];
  if (env !== undefined) return { origin: 'environment', text: env };
  const project = sources.project?.settings[def.env];
  if (project !== undefined) return { origin: 'project', text: project };
  return { origin: 'default', text: undefined };
}

/** The message for a malformed value: what is wrong, where it was set, and how to fix it. */
function problemMessage(def: SettingDefinition<unknown>, raw: Raw, issue: string, sources: SettingSources): string {
  const shown = def.secret ? '<hidden>' : raw.text!;
  switch (raw.origin) {
    case 'flag':
      return `${def.flag} '${shown}' ${issue}`;
    case 'project':
      return `${sources.project!.file}: ${def.project}: '${shown}' ${issue}; fix it in the project file, or set ${def.env} to override it`;
    default: {
      const said = def.problem ? def.problem(shown, issue) : `${def.env}='${shown}' ${issue}`;
      return `${said}; fix or unset the environment variable ${def.env}${def.project ? ` (or set ${def.project} in the project file)` : ''}`;
    }
  }
}

function parseSetting<K extends SettingKey>(
  key: K,
  sources: SettingSources,
): { value: SettingValue<K>; origin: SettingOrigin } {
  const def = SETTINGS[key] as SettingDefinition<unknown>;
  const raw = rawOf(def, key, sources);
  const text = raw.text === undefined ? undefined : def.untrimmed ? raw.text : raw.text.trim();
  if (text === undefined || text === '') {
    const d = def.default;
    return { value: (typeof d === 'function' ? (d as () => unknown)() : d) as SettingValue<K>, origin: 'default' };
  }
  const parsed = def.schema.safeParse(text);
  if (!parsed.success)
    throw new SettingError(key, problemMessage(def, raw, parsed.error.issues[0]?.message ?? 'is not valid', sources));
  return { value: parsed.data as SettingValue<K>, origin: raw.origin };
}

/** The environment with the project's values where it has none: see Settings.env. */
function effectiveEnv(sources: SettingSources): Env {
  const p = sources.project;
  if (!p) return sources.env;
  const env: Record<string, string | undefined> = { ...sources.env };
  for (const [name, value] of Object.entries(p.settings)) if (env[name] === undefined) env[name] = value;
  env[PROJECT_ENV] = p.file;
  return env;
}

/** The settings of these sources (nothing is read or checked until asked for). */
export function loadSettings(sources: SettingSources): Settings {
  const cache = new Map<SettingKey, { value: unknown; origin: SettingOrigin }>();
  const read = (key: SettingKey) => {
    let hit = cache.get(key);
    if (!hit) {
      hit = parseSetting(key, sources);
      cache.set(key, hit);
    }
    return hit;
  };
  let env: Env | undefined;
  const settings = {
    get env() {
      return (env ??= effectiveEnv(sources));
    },
    originOf: (key: SettingKey) => read(key).origin,
    withFlags: (flags: Partial<Record<SettingKey, string | undefined>>) =>
      loadSettings({ ...sources, flags: { ...sources.flags, ...flags } }),
    withEnv: (vars: Record<string, string | undefined>) =>
      loadSettings({ ...sources, env: { ...sources.env, ...vars } }),
  };
  for (const key of KEYS) Object.defineProperty(settings, key, { enumerable: true, get: () => read(key).value });
  return settings as unknown as Settings;
}

/** Whether `x` is a settings object (rather than an environment). */
export function isSettings(x: Settings | Env): x is Settings {
  return typeof (x as Partial<Settings>).withFlags === 'function';
}

/** Settings from an environment alone (no project file, no flags): a library caller's or a test's. */
export function settingsOf(env: Env): Settings {
  return loadSettings({ env });
}

/** Every setting read now: the first malformed one throws (a worker checks its settings before it polls). */
export function checkSettings(settings: Settings, keys: readonly SettingKey[] = KEYS): void {
  for (const key of keys) void settings[key];
}
