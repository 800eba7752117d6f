// Where the worker and the CLI find Temporal, read from the environment in one place so the `run`, `schedule`
// and `worker` commands always agree on namespace and task queue.
import path from 'node:path';

export interface TemporalSettings {
  /** host:port of a Temporal frontend; undefined means "start or reuse the embedded dev server". */
  address: string | undefined;
  namespace: string;
  taskQueue: string;
  /** Root of local state (embedded server's SQLite file, its logs and state file). */
  dataDir: string;
}

export const DEFAULT_NAMESPACE = 'default';
export const DEFAULT_TASK_QUEUE = 'scrape-etl';
export const DEFAULT_DATA_DIR = './data';

export function temporalSettings(env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const nonEmpty = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const address = nonEmpty('TEMPORAL_ADDRESS');
  if (address !== undefined && !/^[^\s:/]+:\d{1,5}$/.test(address) && !/^\[[0-9a-f:]+\]:\d{1,5}$/i.test(address)) {
    throw new Error(`TEMPORAL_ADDRESS must be host:port (e.g. 127.0.0.1:7233), got '${address}'`);
  }
  return {
    address,
    namespace: nonEmpty('TEMPORAL_NAMESPACE') ?? DEFAULT_NAMESPACE,
    taskQueue: nonEmpty('TEMPORAL_TASK_QUEUE') ?? DEFAULT_TASK_QUEUE,
    dataDir: path.resolve(nonEmpty('SCRAPE_ETL_DATA_DIR') ?? DEFAULT_DATA_DIR),
  };
}
