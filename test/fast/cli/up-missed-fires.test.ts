// The bookkeeping of `up`'s missed schedule fires (monitor/missed-fires.ts), without Temporal: which announced fire
// times are judged missed, when, and that the state file makes a restarted `up` go on where the last one stopped.
// The end-to-end behaviour (a real `up`, a real schedule, webhooks) is in cli-up.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MissedFires, didNotRunWorkflowId, missedCause, type ScheduleView } from '../../../monitor/missed-fires.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'missed-fires-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const T0 = Date.parse('2026-11-26T06:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000);
const view = (o: Partial<ScheduleView>): ScheduleView => ({
  id: 's',
  spec: undefined,
  paused: false,
  version: 'v1',
  next: [],
  recent: [],
  running: [],
  overlap: 'skip',
  catchupWindow: '1m',
  ...o,
});

describe('missed fires', () => {
  it('a fire time announced and not taken is missed once the grace passed; a taken one is not', () => {
    const file = path.join(dir, 'a.json');
    const m = new MissedFires({ file, graceMs: 3000, startedAt: at(-60) });
    expect(m.observe(view({ next: [at(5), at(10), at(15)] }), T0)).toEqual([]);
    // 10 s in: 5 taken, 10 not yet judged (grace), 15 in the future.
    expect(m.observe(view({ next: [at(15), at(20)], recent: [at(5)], running: ['s-5'] }), T0 + 11_000)).toEqual([]);
    const found = m.observe(view({ next: [at(20), at(25)], recent: [at(5)], running: ['s-5'] }), T0 + 18_500);
    expect(found.map((f) => f.at.toISOString())).toEqual([at(10).toISOString(), at(15).toISOString()]);
    expect(found[0]!.running).toEqual(['s-5']);
    for (const f of found) m.markHandled('s', f.at);
    m.save();
    // Judged once: the next look does not find them again.
    expect(m.observe(view({ next: [at(25)], recent: [at(5)] }), T0 + 19_000)).toEqual([]);
  });

  it('a restarted up goes on from the file: times announced before it stopped are judged, none twice', () => {
    const file = path.join(dir, 'b.json');
    const first = new MissedFires({ file, graceMs: 3000, startedAt: at(-60) });
    first.observe(view({ next: [at(5), at(10), at(15)] }), T0);
    const f1 = first.observe(view({ next: [at(15)], recent: [] }), T0 + 9000);
    expect(f1.map((f) => f.at.getTime())).toEqual([at(5).getTime()]);
    first.markHandled('s', f1[0]!.at);
    first.save();
    // Stopped at 9 s, started again at 30 s: 10 and 15 passed meanwhile. Not judged before the grace after the start.
    const second = new MissedFires({ file, graceMs: 3000, startedAt: at(30) });
    expect(second.observe(view({ next: [at(35)] }), T0 + 31_000)).toEqual([]);
    expect(second.observe(view({ next: [at(35)] }), T0 + 34_000).map((f) => f.at.getTime())).toEqual([
      at(10).getTime(),
      at(15).getTime(),
    ]);
  });

  it('not judged: a time older than a full list of recent actions, a paused schedule, a schedule changed since', () => {
    const m = new MissedFires({ file: path.join(dir, 'c.json'), graceMs: 1000, startedAt: at(-60) });
    m.observe(view({ next: [at(1)] }), T0);
    const ten = Array.from({ length: 10 }, (_, i) => at(20 + i));
    expect(m.observe(view({ recent: ten }), T0 + 40_000)).toEqual([]);
    m.observe(view({ next: [at(50)] }), T0 + 40_000);
    expect(m.observe(view({ paused: true }), T0 + 60_000)).toEqual([]);
    m.observe(view({ next: [at(70)] }), T0 + 60_000);
    expect(m.observe(view({ version: 'v2', next: [at(90)] }), T0 + 80_000)).toEqual([]);
    expect(m.observe(view({ version: 'v2' }), T0 + 95_000).map((f) => f.at.getTime())).toEqual([at(90).getTime()]);
  });

  it('names the row and says the cause', () => {
    expect(didNotRunWorkflowId('shop', at(0))).toBe('shop--did-not-run-2026-11-26T06:00:00Z');
    const base = { at: at(0), overlap: 'skip', catchupWindow: '1h', upStartedAt: at(-60), taskQueue: 'q' };
    expect(missedCause({ ...base, running: ['shop--scheduled-x'], pollers: 0 })).toBe(
      "skipped by its overlap policy (skip) while the run shop--scheduled-x was still open, and no worker polls task queue 'q' now, so that run cannot go on: start one with `scrape-etl up`",
    );
    expect(missedCause({ ...base, running: [], pollers: 1, upStartedAt: at(60) })).toBe(
      "no run was started: the Temporal server was not running at that time, or came back after the schedule's catch-up window (1h); `scrape-etl up` (the worker) was not running at that time: this one started at 2026-11-26T06:01:00.000Z",
    );
  });
});
