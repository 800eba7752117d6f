// An activity that may wait without progress it can report (a destination file another process holds, a create the
// service is slow to answer) says it is alive on a clock: a heartbeat every quarter of its heartbeat timeout, with
// the details it would resume from. A dead worker or a stopped event loop still goes silent, so Temporal retries the
// activity within its heartbeat timeout; one that never ends is bounded by its start-to-close timeout.
import type { Context } from '@temporalio/activity';

/** How often a kept-alive activity beats: a quarter of its heartbeat timeout (at least 100 ms), else every 10 s. */
export function keepAliveEveryMs(heartbeatTimeoutMs: number | undefined): number {
  return heartbeatTimeoutMs ? Math.max(100, Math.floor(heartbeatTimeoutMs / 4)) : 10_000;
}

/** Beats `details()` on the clock until the returned function is called. */
export function keepAlive(ctx: Context, details: () => unknown): () => void {
  const timer = setInterval(() => ctx.heartbeat(details()), keepAliveEveryMs(ctx.info.heartbeatTimeoutMs));
  return () => clearInterval(timer);
}
