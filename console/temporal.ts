// What the console asks Temporal, when it can: the next time each pipeline's Schedule fires, and the Web UI address
// for links. Optional by design: Temporal is asked only when it already runs (TEMPORAL_ADDRESS, or the embedded
// dev server of the data folder), never started, and an unreachable Temporal leaves "unknown" in the page, with
// the reason, rather than failing or slowing it (answers and failures are kept for CACHE_MS).
import type { TemporalConnection } from '../temporal/connect.js';
import { settingsFor } from '../settings/process.js';
import type { Env, Settings } from '../settings/settings.js';

/** `at` null: the pipeline has no schedule. */
export type NextRun = { at: string | null } | { paused: true } | { unknown: string };

const CACHE_MS = 30_000;
const DESCRIBE_TIMEOUT_MS = 3_000;
const CONNECT_WAIT_MS = 2_000;

export interface TemporalView {
  /** `database`: the destination the pipelines' runs are read from; a schedule of a same-named pipeline that writes elsewhere is not theirs. */
  nextRuns(pipelines: string[], database?: string): Promise<Map<string, NextRun>>;
  workflowUrl(workflowId: string): string | null;
  close(): Promise<void>;
}

export async function temporalView(opts: {
  enabled: boolean;
  uiUrl?: string | undefined;
  settings?: Settings | undefined;
  env?: Env | undefined;
}): Promise<TemporalView> {
  const s = opts.settings ?? settingsFor(opts.env);
  const { temporalSettings } = await import('../temporal/settings.js');
  let settings: ReturnType<typeof temporalSettings> | undefined;
  let settingsError: string | undefined;
  try {
    settings = temporalSettings(s);
  } catch (err) {
    settingsError = (err as Error).message;
  }
  let uiUrl = opts.uiUrl ?? s.temporalUiUrl;
  if (!uiUrl && settings && settings.address === undefined) {
    const { readDevServerState } = await import('../temporal/dev-server.js');
    const state = readDevServerState(settings.dataDir);
    if (state?.uiPort) uiUrl = `http://127.0.0.1:${state.uiPort}`;
  }
  const namespace = settings?.namespace ?? 'default';
  let conn: { at: number; value: TemporalConnection | string } | undefined;
  let connecting: Promise<TemporalConnection | string> | undefined;
  const cache = new Map<string, { at: number; value: NextRun }>();

  /**
   * The connection, or why there is none. A connection attempt may take the SDK's 10 s timeout; a page waits at
   * most CONNECT_WAIT_MS for it and says "unknown" meanwhile, while the attempt goes on for the next page.
   */
  async function connection(): Promise<TemporalConnection | string> {
    if (!opts.enabled) return 'Temporal is not asked (--no-temporal)';
    if (settingsError) return settingsError;
    if (conn && (typeof conn.value !== 'string' || Date.now() - conn.at < CACHE_MS)) return conn.value;
    connecting ??= (async () => {
      const { connectRunningTemporal } = await import('../temporal/connect.js');
      let value: TemporalConnection | string;
      try {
        const c = await connectRunningTemporal(settings);
        value = 'conn' in c ? c.conn : c.notAsked;
      } catch (err) {
        value = (err as Error).message;
      }
      conn = { at: Date.now(), value };
      connecting = undefined;
      return value;
    })();
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<string>((resolve) => {
      timer = setTimeout(
        () => resolve(`Temporal did not answer within ${CONNECT_WAIT_MS / 1000} s (still trying)`),
        CONNECT_WAIT_MS,
      );
      timer.unref();
    });
    try {
      return await Promise.race([connecting, waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async nextRuns(pipelines, database) {
      const out = new Map<string, NextRun>();
      const { destinationKey } = await import('../db/model/url.js');
      const here = database === undefined ? undefined : destinationKey(database);
      const cacheKey = (p: string) => `${here ?? ''}\u0000${p}`;
      const todo = pipelines.filter((p) => {
        const hit = cache.get(cacheKey(p));
        if (hit && Date.now() - hit.at < CACHE_MS) out.set(p, hit.value);
        return !out.has(p);
      });
      if (todo.length === 0) return out;
      const c = await connection();
      const { ScheduleNotFoundError } = await import('@temporalio/client');
      await Promise.all(
        todo.map(async (p) => {
          let value: NextRun;
          if (typeof c === 'string') value = { unknown: c };
          else {
            try {
              const d = await Promise.race([
                c.client.schedule.getHandle(p).describe(),
                new Promise<never>((_, reject) =>
                  setTimeout(
                    () => reject(new Error(`Temporal did not answer in ${DESCRIBE_TIMEOUT_MS} ms`)),
                    DESCRIBE_TIMEOUT_MS,
                  ).unref(),
                ),
              ]);
              // The schedule id is only the pipeline's name, which another project may use too: the schedule is
              // this pipeline's only when the run it starts writes to this database.
              const spec =
                d.action.type === 'startWorkflow'
                  ? (d.action.args?.[0] as { spec?: { destination?: { database?: unknown } } } | undefined)?.spec
                  : undefined;
              const target = spec?.destination?.database;
              const elsewhere = here !== undefined && typeof target === 'string' && destinationKey(target) !== here;
              value = elsewhere
                ? { at: null }
                : d.state.paused
                  ? { paused: true }
                  : { at: d.info.nextActionTimes[0]?.toISOString() ?? null };
            } catch (err) {
              value = err instanceof ScheduleNotFoundError ? { at: null } : { unknown: (err as Error).message };
            }
          }
          cache.set(cacheKey(p), { at: Date.now(), value });
          out.set(p, value);
        }),
      );
      return out;
    },
    workflowUrl(workflowId) {
      return uiUrl
        ? `${uiUrl.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`
        : null;
    },
    async close() {
      await connecting;
      if (conn && typeof conn.value !== 'string') await conn.value.connection.close().catch(() => {});
    },
  };
}
