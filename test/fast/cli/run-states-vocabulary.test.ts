// One vocabulary of run states (issue 36): every surface that names a run's state (status, history, the console's
// run page, webhooks, metrics, the ScrapeEtlStatus search attribute, pipeline_runs) takes it from lib/run-states.ts.
// - the rule: a recorded outcome reads the same word whatever Temporal says of the workflow (before: SUCCEEDED
//   alone, COMPLETED while another run was open);
// - each surface's source imports the definition and spells no state of its own (no COMPLETED, no union of ids).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECORDED_RUN_STATES, RUN_STATES, RUN_STATE_IDS, runStateName, runStateOf } from '../../../lib/run-states.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const TEMPORAL_STATUSES = [
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TERMINATED',
  'TIMED_OUT',
  'CONTINUED_AS_NEW',
];

/** The files where a run's state is named for someone to read or a machine to receive. */
const SURFACES = [
  'cli/commands/status.ts',
  'cli/commands/history.ts',
  'console/pages.ts',
  'console/runs.ts',
  'alerts/notify-messages.ts',
  'temporal/metrics.ts',
  'activities/types.ts',
  'workflows/visibility.ts',
  'workflows/alerts.ts',
  'db/store/pipeline-runs.ts',
];

describe('run states: one definition', () => {
  it('a recorded outcome reads the same word with or without Temporal asked, whatever Temporal says', () => {
    for (const recorded of RECORDED_RUN_STATES.filter((s) => s !== 'running')) {
      const alone = runStateName(runStateOf(recorded));
      expect(alone).toBe(RUN_STATES[recorded]);
      for (const t of TEMPORAL_STATUSES)
        expect(runStateName(runStateOf(recorded, t)), `${recorded} beside Temporal ${t}`).toBe(alone);
    }
  });

  it('Temporal answers only for a run recorded as running or not recorded, in the same vocabulary', () => {
    expect(runStateOf('running', 'RUNNING')).toBe('running');
    expect(runStateOf(null, 'RUNNING')).toBe('running');
    expect(runStateOf('running', 'TERMINATED')).toBe('terminated');
    expect(runStateOf(null, 'COMPLETED')).toBe('completed');
    expect(runStateOf(null, 'SOMETHING_NEW')).toBe('unknown');
    for (const t of TEMPORAL_STATUSES) expect(RUN_STATE_IDS).toContain(runStateOf(null, t));
  });

  it('display names are the ids in capitals, each distinct', () => {
    for (const id of RUN_STATE_IDS) expect(RUN_STATES[id]).toBe(id.toUpperCase());
    expect(new Set(Object.values(RUN_STATES)).size).toBe(RUN_STATE_IDS.length);
  });

  it.each(SURFACES)('%s takes its state names from lib/run-states.ts and spells none of its own', (file) => {
    const src = fs.readFileSync(path.join(ROOT, file), 'utf8');
    expect(src).toMatch(/from '\.\.\/(\.\.\/)?lib\/run-states\.js'/);
    // A union of state ids written out, or a Temporal status printed as a run's state.
    expect(src).not.toMatch(/'succeeded' \| 'partial'/);
    expect(src).not.toMatch(/'COMPLETED|COMPLETED \(/);
    expect(src).not.toMatch(/(status|state)\??\.toUpperCase\(\)/i);
  });
});
