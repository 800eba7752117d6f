// The hand-coded ListSchedules messages (temporal/list-schedules.ts over temporal/protobuf-wire.ts) against
// Temporal's generated protobuf code (@temporalio/proto), the independent coder: a full answer with every field
// the server may send (memo, search attributes, spec, recent actions, several future times, a page token) reads
// to what the SDK would show; the request reads back as written.
import { describe, expect, it } from 'vitest';
import { temporal } from '@temporalio/proto';
import { decodeListSchedulesResponse, listSchedulesRequest } from '../../../temporal/list-schedules.js';

const v1 = temporal.api.workflowservice.v1;
const payload = (s: string) => ({
  metadata: { encoding: Buffer.from('json/plain') },
  data: Buffer.from(JSON.stringify(s)),
});

describe('ListSchedules on the wire', () => {
  it('an answer with every field reads to id, paused and the first future time, in order; the page token too', () => {
    // int64 fields as plain numbers, which protobufjs encodes as it does Longs (its types only name Long).
    const bytes = v1.ListSchedulesResponse.encode({
      schedules: [
        {
          scheduleId: 'jobs-ünïcode',
          memo: { fields: { file: payload('/p/jobs.yaml'), pipeline: payload('jobs') } },
          searchAttributes: { indexedFields: { TemporalSchedulePaused: payload('false') } },
          info: {
            spec: { cronString: ['30 6 * * *'], timezoneName: 'Europe/Paris' },
            workflowType: { name: 'pipelineWorkflow' },
            notes: 'managed by scrape-etl',
            paused: true,
            recentActions: [
              { scheduleTime: { seconds: 1_700_000_000, nanos: 0 }, actualTime: { seconds: 1_700_000_001, nanos: 5 } },
            ],
            futureActionTimes: [
              { seconds: 4_102_444_800, nanos: 987_654_321 },
              { seconds: 4_102_531_200, nanos: 0 },
            ],
            stateSizeBytes: 4096,
          },
        },
        { scheduleId: 'no-info' },
        { scheduleId: 'active', info: { paused: false, futureActionTimes: [{ seconds: 1_800_000_000 }] } },
      ],
      nextPageToken: Buffer.from([1, 2, 3, 250]),
    } as unknown as temporal.api.workflowservice.v1.IListSchedulesResponse).finish();
    const page = decodeListSchedulesResponse(bytes);
    expect(page.schedules).toEqual([
      { scheduleId: 'jobs-ünïcode', paused: true, nextActionTime: new Date('2100-01-01T00:00:00.987Z') },
      { scheduleId: 'no-info', paused: false, nextActionTime: undefined },
      { scheduleId: 'active', paused: false, nextActionTime: new Date(1_800_000_000_000) },
    ]);
    expect([...page.nextPageToken!]).toEqual([1, 2, 3, 250]);
    expect(decodeListSchedulesResponse(v1.ListSchedulesResponse.encode({ schedules: [] }).finish())).toEqual({
      schedules: [],
      nextPageToken: undefined,
    });
  });

  it('the request reads back with the namespace and the page token; a truncated answer is an error, not a short list', () => {
    const token = Uint8Array.from({ length: 300 }, (_, i) => i % 256);
    const req = v1.ListSchedulesRequest.decode(listSchedulesRequest('acme.a1b2c', token));
    expect(req.namespace).toBe('acme.a1b2c');
    expect([...req.nextPageToken]).toEqual([...token]);
    expect(v1.ListSchedulesRequest.decode(listSchedulesRequest('default', undefined)).nextPageToken).toHaveLength(0);
    const whole = v1.ListSchedulesResponse.encode({ schedules: [{ scheduleId: 'a' }, { scheduleId: 'b' }] }).finish();
    expect(() => decodeListSchedulesResponse(whole.subarray(0, whole.length - 1))).toThrow(/past the end/);
  });
});
