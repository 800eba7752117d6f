// A command's connection to Temporal as a client only, with no worker in this process: light on purpose (no
// @temporalio/worker), so that `run` beside a polling worker loads the Temporal client and nothing of the worker.
import type { TemporalConnection } from '../temporal/connect.js';
import type { TemporalSettings } from '../temporal/settings.js';

export interface Session {
  conn: TemporalConnection;
  settings: TemporalSettings;
  /** true when this process runs a worker for the task queue. */
  hasWorker: boolean;
  /** Stops the worker (if any; in-flight activities get a short grace) and closes the connection. */
  close(): Promise<void>;
}

/** A session of a client only (no worker in this process), for a connection already made. */
export function clientSession(conn: TemporalConnection, settings: TemporalSettings): Session {
  return {
    conn,
    settings,
    hasWorker: false,
    async close() {
      await conn.connection.close();
      await conn.releaseServer?.();
    },
  };
}
