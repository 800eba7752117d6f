// Worker-side knobs, read from the worker's environment when its activities are built (activities/deps.ts). The
// workflow asks for them once per run (the planPipelineRun local activity, so the values are recorded in history
// and replay sees the same ones). SCRAPE_ETL_HEARTBEAT_TIMEOUT short: a killed worker's activity is retried soon.
import type { WorkerTuning } from './contract.js';
import { positiveIntFromEnv } from '../lib/env-int.js';

const DURATION = /^[0-9]+(ms|s|m|h|d)$/;

function duration(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const v = env[name]?.trim();
  if (!v) return fallback;
  if (!DURATION.test(v)) throw new Error(`${name}='${v}' is not a duration like '500ms', '5s', '10m'`);
  return v;
}

/** The wait's heartbeat timeout on the embedded dev server, where no heartbeat is billed. */
export const EMBEDDED_WAIT_HEARTBEAT_TIMEOUT = '20s';

export interface WorkerTuningContext {
  /** The worker polls the embedded dev server this tool started (no TEMPORAL_ADDRESS): nothing there is billed. */
  embeddedServer?: boolean;
}

export function readWorkerTuning(env: NodeJS.ProcessEnv = process.env, context: WorkerTuningContext = {}): WorkerTuning {
  return {
    heartbeatTimeout: duration(env, 'SCRAPE_ETL_HEARTBEAT_TIMEOUT', '30s'),
    // A scraping run waited for takes minutes; a dead worker's wait noticed within 5 minutes costs little of it, and
    // each heartbeat that reaches the server is a billed action on Temporal Cloud (docs/temporal-actions.md). The
    // embedded dev server bills nothing, so there a `run` killed mid-wait is taken over by the next one in seconds.
    waitHeartbeatTimeout: duration(env, 'SCRAPE_ETL_WAIT_HEARTBEAT_TIMEOUT', context.embeddedServer ? EMBEDDED_WAIT_HEARTBEAT_TIMEOUT : '5m'),
    activityTimeout: duration(env, 'SCRAPE_ETL_ACTIVITY_TIMEOUT', '30m'),
    // 100: a list of up to 100 URLs is one activity (chunks run one after another, each with the pipeline's
    // concurrency inside, so a longer chunk costs no parallelism). With 25, a 100-URL run was 4 activities: 35
    // history events and 12 billable actions against 17 and 6, and the Temporal server spent 1.2 ms of CPU a URL
    // against 0.5-0.8 in bench/many-runs.ts. What a chunk costs instead: progress moves by whole chunks, and a
    // worker killed mid-chunk hands the rest of it over after the heartbeat timeout (it resumes from its heartbeat).
    urlChunkSize: positiveIntFromEnv(env, 'SCRAPE_ETL_URL_CHUNK_SIZE', 100),
    // Set by the operator: that size exactly; else the workflow grows chunks with the list (workflows/url-lists.ts).
    ...(env['SCRAPE_ETL_URL_CHUNK_SIZE']?.trim() ? { urlChunkFixed: true } : {}),
    urlLoadGroup: positiveIntFromEnv(env, 'SCRAPE_ETL_URL_LOAD_GROUP', 25),
    pagesPerActivity: positiveIntFromEnv(env, 'SCRAPE_ETL_PAGES_PER_ACTIVITY', 20),
    activitiesPerRun: positiveIntFromEnv(env, 'SCRAPE_ETL_ACTIVITIES_PER_RUN', 100),
    loadBatchSize: positiveIntFromEnv(env, 'SCRAPE_ETL_LOAD_BATCH_SIZE', 500),
  };
}
