// An activity that may wait without progress it can report (a destination file another process holds, a create the
// service is slow to answer) says it is alive on a clock: a heartbeat every quarter of its heartbeat timeout, with
// the details it would resume from. A dead worker or a stopped event loop still goes silent, so Temporal retries the
// activity within its heartbeat timeout; one that never ends is bounded by its start-to-close timeout.
import type { Context } from '@temporalio/activity';

/** How often a kept-alive activity beats: a quarter of its heartbeat timeout (at least 100 ms), else every 10 s. */
export function keepAliveEveryMs(heartbeatTimeoutMs: number | undefined): number {
  return heartbeatTimeoutMs ? Math.max(100, Math.floor(heartbeatTimeoutMs / 4)) : 10_000;
}

/** Beats `details()` on the clock until the returned function is called. A local activity has no heartbeat. */
export function keepAlive(ctx: Context, details: () => unknown): () => void {
  if (ctx.info.isLocal) return () => {};
  const timer = setInterval(() => ctx.heartbeat(details()), keepAliveEveryMs(ctx.info.heartbeatTimeoutMs));
  return () => clearInterval(timer);
}

/** Progress heartbeats of an activity that resumes from its details, kept alive between them. */
export interface ProgressBeats<D> {
  /** Records and sends the newest progress. */
  beat(details: D): void;
  /** Sends the newest progress again (a step that made none but is alive). */
  again(): void;
  stop(): void;
}

/**
 * The clock sends the newest progress details again, never a bare heartbeat: Temporal gives a retry the last
 * heartbeat's details, so a beat without them while the activity waits (for a destination file, between pages)
 * would send a retry back to its start. Until the first progress the newest details are the earlier attempt's.
 */
export function progressBeats<D>(ctx: Context): ProgressBeats<D> {
  let newest = ctx.info.heartbeatDetails as D | undefined;
  const send = () => {
    if (!ctx.info.isLocal) ctx.heartbeat(newest);
  };
  const stop = keepAlive(ctx, () => newest);
  return {
    beat(details) {
      newest = details;
      send();
    },
    again: send,
    stop,
  };
}

/** Runs `work` kept alive from its start (before it opens its destination), handing it its progress beats. */
export async function withProgressBeats<D, T>(ctx: Context, work: (beats: ProgressBeats<D>) => Promise<T>): Promise<T> {
  const beats = progressBeats<D>(ctx);
  try {
    return await work(beats);
  } finally {
    beats.stop();
  }
}
