// The one module that reads this process's environment (test/fast/settings/process-env.test.ts holds every other
// product module to it): the entry points build the process's settings here, once, from the environment, the
// project file and their flags, and hand them down. Code used as a library (tests, benchmarks) without an entry point
// gets settings read from the environment as it is at that moment.
import { loadSettings, settingsOf, type Env, type ProjectLayer, type Settings } from './settings.js';

let pinned: Settings | undefined;

/** Called by an entry point once it knows the project file: the settings every later reader of this process gets. */
export function enterSettings(project?: ProjectLayer): Settings {
  pinned = loadSettings({ env: process.env, project });
  return pinned;
}

/** Replaces the process's settings: a command that changes them for what it runs in this process (`demo`'s simulator). */
export function pinSettings(settings: Settings): void {
  pinned = settings;
}

/** This process's settings: the entry point's, else the environment's as it is now. */
export function processSettings(): Settings {
  return pinned ?? loadSettings({ env: process.env });
}

/** The settings of `env` when a caller gives one (a test, a child's environment), else this process's. */
export function settingsFor(env?: Env): Settings {
  return env === undefined ? processSettings() : settingsOf(env);
}

/** The destination of pipelines that name none: DATABASE_URL (or the project's `destination`), else the default. */
export function defaultDatabaseUrl(env?: Env): string {
  return settingsFor(env).databaseUrl;
}
