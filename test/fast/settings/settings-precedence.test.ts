// The settings object (settings/settings.ts): one precedence for every setting, flag > environment > project file >
// built-in default; a value checked when read, its error naming where it came from and the fix; the project file's
// values given to child processes through the settings' environment, never written into the caller's.
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../../settings/definition.js';
import { loadSettings, SettingError, settingsOf } from '../../../settings/settings.js';

const project = {
  file: '/srv/shop/scrape-etl.yaml',
  settings: { SCRAPE_ETL_HEARTBEAT_TIMEOUT: '45s', TEMPORAL_TASK_QUEUE: 'from-file', SCRAPE_ETL_SHUTDOWN_GRACE: '10s' },
};

describe('settings precedence', () => {
  it('takes a flag over the environment, the environment over the project file, the file over the default', () => {
    const env = { SCRAPE_ETL_SHUTDOWN_GRACE: '20s', TEMPORAL_TASK_QUEUE: 'from-env' };
    const s = loadSettings({ env, project, flags: { shutdownGrace: '5s' } });
    expect(s.shutdownGrace).toBe('5s');
    expect(s.originOf('shutdownGrace')).toBe('flag');
    expect(s.temporalTaskQueue).toBe('from-env');
    expect(s.originOf('temporalTaskQueue')).toBe('environment');
    expect(s.heartbeatTimeout).toBe('45s');
    expect(s.originOf('heartbeatTimeout')).toBe('project');
    expect(s.activityTimeout).toBe('30m');
    expect(s.originOf('activityTimeout')).toBe('default');
    expect(s.withFlags({ shutdownGrace: undefined }).shutdownGrace).toBe('20s');
  });

  it('a variable set to empty wins over the project file and means the built-in default', () => {
    const s = loadSettings({ env: { SCRAPE_ETL_HEARTBEAT_TIMEOUT: '' }, project });
    expect(s.heartbeatTimeout).toBe('30s');
    expect(s.originOf('heartbeatTimeout')).toBe('default');
  });

  it("gives the project's values to children through its environment, and leaves the caller's as it was", () => {
    const env: Record<string, string | undefined> = { TEMPORAL_TASK_QUEUE: 'from-env' };
    const s = loadSettings({ env, project });
    expect(s.env['SCRAPE_ETL_HEARTBEAT_TIMEOUT']).toBe('45s');
    expect(s.env['TEMPORAL_TASK_QUEUE']).toBe('from-env');
    expect(s.env['SCRAPE_ETL_PROJECT']).toBe(project.file);
    expect(env).toEqual({ TEMPORAL_TASK_QUEUE: 'from-env' });
  });

  it('types values by their definition', () => {
    const s = settingsOf({
      SCRAPE_ETL_URL_LOAD_GROUP: ' 12 ',
      SCRAPE_ETL_UMASK: '027',
      TEMPORAL_TLS: 'FALSE',
      SCRAPE_ETL_NOTIFY_ON: 'failed, partial,,',
    });
    expect(s.urlLoadGroup).toBe(12);
    expect(s.umask).toBe(0o027);
    expect(s.temporalTls).toBe(false);
    expect(s.notifyOn).toEqual(['failed', 'partial']);
    expect(settingsOf({}).databaseUrl).toBe('sqlite:./data/scrape-etl.sqlite');
    expect(settingsOf({ DATABASE_URL: ' postgres://db/x ' }).databaseUrl).toBe('postgres://db/x');
    expect(settingsOf({ SCRAPER_API_TOKEN: ' t k ' }).scraperApiToken).toBe(' t k ');
  });
});

describe('a wrong value', () => {
  const failure = (read: () => unknown): SettingError => {
    try {
      read();
    } catch (err) {
      expect(err).toBeInstanceOf(SettingError);
      return err as SettingError;
    }
    throw new Error('expected a SettingError');
  };

  it('from the environment names the variable, the value and the fix', () => {
    const err = failure(() => settingsOf({ SCRAPE_ETL_URL_LOAD_GROUP: 'many' }).urlLoadGroup);
    expect(err.message).toBe(
      "SCRAPE_ETL_URL_LOAD_GROUP='many' must be a positive integer; fix or unset the environment variable SCRAPE_ETL_URL_LOAD_GROUP (or set worker.url_load_group in the project file)",
    );
    expect(err.exitCode).toBe(2);
    expect(err.setting).toBe('urlLoadGroup');
  });

  it('from the project file names the file, the key and the variable that overrides it', () => {
    const s = loadSettings({
      env: {},
      project: { file: '/p/scrape-etl.yaml', settings: { SCRAPE_ETL_PG_POOL_SIZE: '0' } },
    });
    expect(failure(() => s.pgPoolSize).message).toBe(
      "/p/scrape-etl.yaml: worker.pg_pool_size: '0' must be an integer from 1 to 1000 (connections per Postgres pool); fix it in the project file, or set SCRAPE_ETL_PG_POOL_SIZE to override it",
    );
  });

  it('from a flag names the flag', () => {
    expect(failure(() => loadSettings({ env: {}, flags: { shutdownGrace: 'soon' } }).shutdownGrace).message).toBe(
      "--shutdown-grace 'soon' is not a duration like '30s'",
    );
    expect(failure(() => loadSettings({ env: {}, flags: { workerLogLevel: 'loud' } }).workerLogLevel).message).toBe(
      "--log-level 'loud' is not one of TRACE, DEBUG, INFO, WARN, ERROR",
    );
  });

  it('fails only where it is read: the other settings of the same sources still read', () => {
    const s = settingsOf({ SCRAPE_ETL_HEAP_GROWTH_PERCENT: '301' });
    expect(s.dataDir).toBe('./data');
    expect(failure(() => s.heapGrowthPercent).message).toContain(
      "SCRAPE_ETL_HEAP_GROWTH_PERCENT='301' must be a whole number of percent from 0",
    );
  });
});

describe('the definition', () => {
  it('names each variable, flag and project key once', () => {
    const defs = Object.values(SETTINGS) as Array<{ env: string; flag?: string; project?: string }>;
    for (const field of ['env', 'flag', 'project'] as const) {
      const names = defs.map((d) => d[field]).filter((x): x is string => x !== undefined);
      expect(
        names.filter((n, i) => names.indexOf(n) !== i),
        `${field} names repeated`,
      ).toEqual([]);
    }
  });

  it('says what every setting means and what it is when unset', () => {
    for (const [key, d] of Object.entries(SETTINGS)) {
      expect(d.description.length, key).toBeGreaterThan(10);
      expect(d.defaultText.length, key).toBeGreaterThan(0);
    }
  });
});
