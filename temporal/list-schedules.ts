// `ListSchedules` of Temporal's WorkflowService without the SDK (temporal/grpc-unary.ts says why): the request
// and the part of the answer `scrape-etl schedule list` shows (id, paused, next action time), coded with
// protobufjs's minimal reader and writer, the library the SDK's generated code uses. Field numbers from
// temporal/api/workflowservice/v1/request_response.proto and temporal/api/schedule/v1/message.proto; every other
// field is skipped by its wire type, so newer servers' additions do not matter. test/cli-schedule.test.ts checks
// the answer against `temporal schedule list -o json`.
import protobuf from 'protobufjs/minimal.js';
import { GrpcConnectError, GrpcStatusError, unaryCall } from './grpc-unary.js';
import type { TemporalSettings } from './settings.js';

export interface ScheduleListItem {
  scheduleId: string;
  paused: boolean;
  /** The next time the schedule acts, if any (ScheduleListInfo.future_action_times[0]). */
  nextActionTime: Date | undefined;
}

const { Reader, Writer } = protobuf;
type ProtoReader = protobuf.Reader;

function listRequest(namespace: string, pageToken: Uint8Array | undefined): Uint8Array {
  const w = Writer.create();
  w.uint32((1 << 3) | 2).string(namespace);
  if (pageToken && pageToken.length > 0) w.uint32((3 << 3) | 2).bytes(pageToken);
  return w.finish();
}

/** Reads the fields of one length-delimited message, calling `field` for each; unknown ones are skipped. */
function readMessage(r: ProtoReader, end: number, field: (no: number, wireType: number) => boolean): void {
  while (r.pos < end) {
    const tag = r.uint32();
    if (!field(tag >>> 3, tag & 7)) r.skipType(tag & 7);
  }
}

/** An int64 as a number, whether protobufjs read it as a number or as a Long (when the long package is there). */
function toNumber(v: number | protobuf.Long): number {
  return typeof v === 'number' ? v : protobuf.util.LongBits.from(v).toNumber();
}

function readTimestamp(r: ProtoReader): Date {
  const end = r.uint32() + r.pos;
  let seconds = 0;
  let nanos = 0;
  readMessage(r, end, (no, wt) => {
    if (no === 1 && wt === 0) seconds = toNumber(r.int64());
    else if (no === 2 && wt === 0) nanos = r.int32();
    else return false;
    return true;
  });
  // Milliseconds, as the SDK's Date from a Timestamp.
  return new Date(seconds * 1000 + Math.floor(nanos / 1_000_000));
}

function readInfo(r: ProtoReader, item: ScheduleListItem): void {
  const end = r.uint32() + r.pos;
  readMessage(r, end, (no, wt) => {
    if (no === 4 && wt === 0) item.paused = r.bool();
    else if (no === 6 && wt === 2) {
      const t = readTimestamp(r);
      item.nextActionTime ??= t;
    } else return false;
    return true;
  });
}

function readEntry(r: ProtoReader): ScheduleListItem {
  const end = r.uint32() + r.pos;
  const item: ScheduleListItem = { scheduleId: '', paused: false, nextActionTime: undefined };
  readMessage(r, end, (no, wt) => {
    if (no === 1 && wt === 2) item.scheduleId = r.string();
    else if (no === 4 && wt === 2) readInfo(r, item);
    else return false;
    return true;
  });
  return item;
}

export function decodeListSchedulesResponse(bytes: Uint8Array): { schedules: ScheduleListItem[]; nextPageToken: Uint8Array | undefined } {
  const r = Reader.create(bytes);
  const schedules: ScheduleListItem[] = [];
  let nextPageToken: Uint8Array | undefined;
  readMessage(r, r.len, (no, wt) => {
    if (no === 1 && wt === 2) schedules.push(readEntry(r));
    else if (no === 2 && wt === 2) nextPageToken = r.bytes();
    else return false;
    return true;
  });
  return { schedules, nextPageToken: nextPageToken && nextPageToken.length > 0 ? nextPageToken : undefined };
}

/** Not found on ListSchedules is the namespace's; worded as the SDK's NamespaceNotFoundError. */
export class NamespaceNotFoundError extends Error {
  override readonly name = 'NamespaceNotFoundError';
}

export interface ListSchedulesOptions {
  settings: Pick<TemporalSettings, 'tls' | 'apiKey' | 'namespace' | 'address'>;
  address: string;
  timeoutMs: number;
}

/** Every schedule of the namespace, page after page. Errors: GrpcConnectError, GrpcStatusError, NamespaceNotFoundError. */
export async function* listSchedules(opts: ListSchedulesOptions): AsyncGenerator<ScheduleListItem> {
  let pageToken: Uint8Array | undefined;
  do {
    let answer: Buffer;
    try {
      answer = await unaryCall({
        settings: opts.settings,
        address: opts.address,
        service: 'temporal.api.workflowservice.v1.WorkflowService',
        method: 'ListSchedules',
        request: listRequest(opts.settings.namespace, pageToken),
        timeoutMs: opts.timeoutMs,
      });
    } catch (err) {
      if (err instanceof GrpcStatusError && err.code === 5) throw new NamespaceNotFoundError(`Namespace not found: '${opts.settings.namespace}'`);
      throw err;
    }
    const page = decodeListSchedulesResponse(answer);
    yield* page.schedules;
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined);
}

export { GrpcConnectError, GrpcStatusError };
