// What `run`'s line says of an activity whose worker is gone (cli/waiting.ts), from describe()'s pending activities.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { clockTime, describeWaiting, waitingOf } from '../../../cli/waiting.js';
import { readWorkerTuning } from '../../../temporal/tuning.js';

// describe()'s answer as protobufjs decodes it, seconds as plain numbers (tsMs reads both those and Longs).
type Pending = Parameters<typeof waitingOf>[0];

const ts = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });
const STARTED = 2;

describe('waitingOf: a started attempt whose worker is gone', () => {
  it('names a dead local worker and when the server hands its attempt over', () => {
    // A process of this machine that has exited: its pid is no longer alive.
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const lastHeartbeat = Date.now() - 3_000;
    const note = waitingOf([
      {
        activityType: { name: 'waitForScrapingRun' },
        state: STARTED,
        attempt: 1,
        lastWorkerIdentity: `${dead}@${os.hostname()}`,
        lastHeartbeatTime: ts(lastHeartbeat),
        activityOptions: { heartbeatTimeout: { seconds: 20 } },
      },
    ] as unknown as Pending);
    expect(note).toBeDefined();
    expect(describeWaiting(note!)).toBe(
      `waiting: the previous worker (pid ${dead}) stopped; taken over by ${clockTime(lastHeartbeat + 20_000)}`,
    );
  });

  it('suspects a remote worker only once it is silent past the heartbeat throttle', () => {
    const now = Date.now();
    const pending = (silentMs: number) =>
      [
        {
          state: STARTED,
          attempt: 1,
          lastWorkerIdentity: '77@elsewhere',
          lastHeartbeatTime: ts(now - silentMs),
          activityOptions: { heartbeatTimeout: { seconds: 300 } },
        },
      ] as unknown as Pending;
    expect(waitingOf(pending(60_000), now)).toBeUndefined();
    const note = waitingOf(pending(280_000), now);
    expect(note?.reason).toBe(
      `no heartbeat from worker 77@elsewhere since ${clockTime(now - 280_000)}; taken over by ${clockTime(now + 20_000)} if it stays silent`,
    );
  });

  it('says a heartbeat timeout is a stopped worker, and nothing once another worker runs the attempt', () => {
    const lost = { message: 'activity Heartbeat timeout', timeoutFailureInfo: { timeoutType: 4 } };
    expect(waitingOf([{ state: 1, attempt: 2, lastFailure: lost }] as unknown as Pending)?.reason).toBe(
      'the previous worker stopped (no heartbeat within its timeout)',
    );
    expect(
      waitingOf([
        { state: STARTED, attempt: 2, lastFailure: lost, lastWorkerIdentity: `${process.pid}@${os.hostname()}` },
      ] as unknown as Pending),
    ).toBeUndefined();
  });
});

describe('the wait heartbeat timeout', () => {
  it('is short on the embedded dev server, where nothing is billed, unless the operator sets it', () => {
    expect(readWorkerTuning({}).waitHeartbeatTimeout).toBe('5m');
    expect(readWorkerTuning({}, { embeddedServer: true }).waitHeartbeatTimeout).toBe('20s');
    expect(
      readWorkerTuning({ SCRAPE_ETL_WAIT_HEARTBEAT_TIMEOUT: '2m' }, { embeddedServer: true }).waitHeartbeatTimeout,
    ).toBe('2m');
  });
});
