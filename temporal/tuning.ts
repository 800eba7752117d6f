// Worker-side knobs, taken from the worker's settings (settings/) when its activities are built (activities/deps.ts). The
// workflow asks for them once per run (the planPipelineRun local activity, so the values are recorded in history
// and replay sees the same ones). SCRAPE_ETL_HEARTBEAT_TIMEOUT short: a killed worker's activity is retried soon.
import type { WorkerTuning } from './contract.js';
import { settingsFor } from '../settings/process.js';
import { isSettings, type Env, type Settings } from '../settings/settings.js';

/** The wait's heartbeat timeout on the embedded dev server, where no heartbeat is billed. */
export const EMBEDDED_WAIT_HEARTBEAT_TIMEOUT = '20s';

export interface WorkerTuningContext {
  /** The worker polls the embedded dev server this tool started (no TEMPORAL_ADDRESS): nothing there is billed. */
  embeddedServer?: boolean;
}

/** The tuning of these settings (an environment is read as settings; default: this process's). */
export function readWorkerTuning(from?: Settings | Env, context: WorkerTuningContext = {}): WorkerTuning {
  const s = from !== undefined && isSettings(from) ? from : settingsFor(from);
  return {
    heartbeatTimeout: s.heartbeatTimeout,
    // A scraping run waited for takes minutes; a dead worker's wait noticed within 5 minutes costs little of it, and
    // each heartbeat that reaches the server is a billed action on Temporal Cloud (docs/temporal-actions.md). The
    // embedded dev server bills nothing, so there a `run` killed mid-wait is taken over by the next one in seconds.
    waitHeartbeatTimeout: s.waitHeartbeatTimeout ?? (context.embeddedServer ? EMBEDDED_WAIT_HEARTBEAT_TIMEOUT : '5m'),
    activityTimeout: s.activityTimeout,
    // 100: a list of up to 100 URLs is one activity (chunks run one after another, each with the pipeline's
    // concurrency inside, so a longer chunk costs no parallelism). Smaller chunks cost more history events, billable
    // actions and server CPU per URL (bench/many-runs.ts, docs/measurements.md). What a chunk costs instead: progress moves by whole chunks, and a
    // worker killed mid-chunk hands the rest of it over after the heartbeat timeout (it resumes from its heartbeat).
    urlChunkSize: s.urlChunkSize,
    // Set by the operator: that size exactly; else the workflow grows chunks with the list (workflows/url-lists.ts).
    ...(s.originOf('urlChunkSize') !== 'default' ? { urlChunkFixed: true } : {}),
    urlLoadGroup: s.urlLoadGroup,
    pagesPerActivity: s.pagesPerActivity,
    activitiesPerRun: s.activitiesPerRun,
    loadBatchSize: s.loadBatchSize,
  };
}
