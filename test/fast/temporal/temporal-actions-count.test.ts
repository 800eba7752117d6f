// temporal/actions.ts counts Temporal Cloud's billable actions from a history as its documentation says (no
// server: synthetic events and the recorded histories of test/replay/histories), and workflows/url-lists.ts sizes
// URL chunks from the list's length.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { countActions } from '../../../temporal/actions.js';
import { chunkSizeFor } from '../../../workflows/url-lists.js';
import { readWorkerTuning } from '../../../temporal/tuning.js';

const { temporal } = proto;
const T = temporal.api.enums.v1.EventType;
const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'replay', 'histories');
const history = (file: string) => temporal.api.history.v1.History.decode(fs.readFileSync(path.join(dir, file))).events;
const at = (s: number) => ({ seconds: s, nanos: 0 });

describe('billable actions of a history', () => {
  it('counts a start, an activity and its retries, the markers of one workflow task once, timers and upserts', () => {
    const events = [
      { eventId: 1, eventType: T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED },
      {
        eventId: 4,
        eventType: T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
        workflowTaskCompletedEventAttributes: { meteringMetadata: { nonfirstLocalActivityExecutionAttempts: 2 } },
      },
      // Two local activities and a patch marker in one workflow task: one action.
      {
        eventId: 5,
        eventType: T.EVENT_TYPE_MARKER_RECORDED,
        markerRecordedEventAttributes: { markerName: 'core_patch', workflowTaskCompletedEventId: 4 },
      },
      {
        eventId: 6,
        eventType: T.EVENT_TYPE_MARKER_RECORDED,
        markerRecordedEventAttributes: { markerName: 'core_local_activity', workflowTaskCompletedEventId: 4 },
      },
      {
        eventId: 7,
        eventType: T.EVENT_TYPE_MARKER_RECORDED,
        markerRecordedEventAttributes: { markerName: 'core_local_activity', workflowTaskCompletedEventId: 4 },
      },
      {
        eventId: 8,
        eventType: T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
        activityTaskScheduledEventAttributes: {
          activityType: { name: 'loadUrlChunk' },
          heartbeatTimeout: { seconds: 30 },
        },
      },
      {
        eventId: 9,
        eventType: T.EVENT_TYPE_ACTIVITY_TASK_STARTED,
        eventTime: at(100),
        activityTaskStartedEventAttributes: { scheduledEventId: 8, attempt: 3 },
      },
      // 50 s of the last attempt: its first heartbeat, then one per 24 s (80% of 30 s): 2 more.
      {
        eventId: 10,
        eventType: T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
        eventTime: at(150),
        activityTaskCompletedEventAttributes: { scheduledEventId: 8 },
      },
      { eventId: 13, eventType: T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED },
      {
        eventId: 14,
        eventType: T.EVENT_TYPE_MARKER_RECORDED,
        markerRecordedEventAttributes: { markerName: 'core_local_activity', workflowTaskCompletedEventId: 13 },
      },
      { eventId: 15, eventType: T.EVENT_TYPE_TIMER_STARTED },
      {
        eventId: 16,
        eventType: T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
        upsertWorkflowSearchAttributesEventAttributes: { searchAttributes: { indexedFields: { ScrapeEtlStatus: {} } } },
      },
      // Versioning's own attribute is exempt; the memo is not billed.
      {
        eventId: 17,
        eventType: T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
        upsertWorkflowSearchAttributesEventAttributes: {
          searchAttributes: { indexedFields: { TemporalChangeVersion: {} } },
        },
      },
      { eventId: 18, eventType: T.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED },
      { eventId: 19, eventType: T.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED },
    ];
    const c = countActions(events as never);
    expect(c.events).toBe(events.length);
    expect(c.by).toEqual({
      start: 1,
      'local-activity-retry': 2,
      'activity:loadUrlChunk': 1,
      'retry:loadUrlChunk': 2,
      'heartbeat:loadUrlChunk': 3 + 2,
      markers: 2,
      timer: 1,
      upsert: 1,
    });
    expect(c.actions).toBe(1 + 2 + 1 + 2 + 5 + 2 + 1 + 1);
    expect(countActions(events as never, { heartbeats: false }).actions).toBe(c.actions - 5);
  });

  it("the lean workflow code costs fewer actions than main's for the same runs (recorded histories)", () => {
    for (const mode of ['url-list', 'create-and-wait', 'results-sync', 'url-list-hooks']) {
      const before = countActions(history(`2a11d95-${mode}.binpb`));
      const after = countActions(history(`lean-e35cef9-${mode}.binpb`));
      expect(after.events, mode).toBeLessThan(before.events);
      expect(after.actions, mode).toBeLessThan(before.actions);
    }
  });
});

describe('URL chunk size', () => {
  it('grows with the list to about 8 chunks, within [urlChunkSize, 250], unless the size was set or the run is older', () => {
    expect(chunkSizeFor(1, { urlChunkSize: 25 }, true)).toBe(25);
    expect(chunkSizeFor(100, { urlChunkSize: 25 }, true)).toBe(25);
    expect(chunkSizeFor(1000, { urlChunkSize: 25 }, true)).toBe(125);
    expect(chunkSizeFor(100_000, { urlChunkSize: 25 }, true)).toBe(250);
    expect(chunkSizeFor(1000, { urlChunkSize: 25, urlChunkFixed: true }, true)).toBe(25);
    expect(chunkSizeFor(1000, { urlChunkSize: 25 }, false)).toBe(25);
  });

  it('is one activity for a list of up to 100 URLs on a worker with the default tuning, and about 8 beyond 800', () => {
    const tuning = readWorkerTuning({});
    expect(chunkSizeFor(4, tuning, true)).toBeGreaterThanOrEqual(4);
    expect(chunkSizeFor(100, tuning, true)).toBe(100);
    expect(Math.ceil(250 / chunkSizeFor(250, tuning, true))).toBe(3);
    expect(Math.ceil(1000 / chunkSizeFor(1000, tuning, true))).toBe(8);
    expect(chunkSizeFor(1000, readWorkerTuning({ SCRAPE_ETL_URL_CHUNK_SIZE: '25' }), true)).toBe(25);
  });
});
