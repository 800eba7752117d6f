// While `run` waits as a client only (a worker polled when it started), the worker may leave: `up` stopped, a
// `worker` killed, another run's worker gone with its run. A run whose task queue nobody polls waits forever with
// nothing to say, so the waiting `run` looks at the queue now and then (describing a task queue is not a billed
// action) and, once no poller has been seen for IDLE_MS, acts once: see run.ts (it says so and runs a worker itself).
import type { Client } from '@temporalio/client';
import { livePollers } from '../temporal/pollers.js';

/** How long a queue may go without any poller before `run` takes its run over. */
export const IDLE_MS = 30_000;
const LOOK_EVERY_MS = 5_000;

export interface QueueWatch {
  stop(): void;
}

export function watchQueue(o: {
  client: Client;
  namespace: string;
  taskQueue: string;
  /** Called once, when no poller has been seen for idleMs. */
  onIdle: () => Promise<void>;
  onError?: (err: unknown) => void;
  idleMs?: number;
  everyMs?: number;
}): QueueWatch {
  const idleMs = o.idleMs ?? IDLE_MS;
  // From the first look that found no poller: the queue has had none for at least that long.
  let noneSince: number | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const look = async (): Promise<void> => {
    try {
      if ((await livePollers(o.client, o.namespace, o.taskQueue)).length > 0) noneSince = undefined;
      else if (noneSince === undefined) noneSince = Date.now();
      else if (Date.now() - noneSince >= idleMs) {
        stopped = true;
        await o.onIdle();
        return;
      }
    } catch (err) {
      // The server restarting: not a reason to take anything over; look again later.
      o.onError?.(err);
    }
    if (!stopped) timer = setTimeout(() => void look(), o.everyMs ?? LOOK_EVERY_MS).unref();
  };
  timer = setTimeout(() => void look(), o.everyMs ?? LOOK_EVERY_MS).unref();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
