// `ListSchedules` of Temporal's WorkflowService without the SDK (temporal/grpc-unary.ts says why): the request
// and the part of the answer `scrape-etl schedule list` shows (id, paused, next action time), in protobuf's wire
// format (temporal/protobuf-wire.ts). Field numbers from
// temporal/api/workflowservice/v1/request_response.proto and temporal/api/schedule/v1/message.proto; every other
// field is skipped by its wire type, so newer servers' additions do not matter. test/integration/cli/cli-schedule.test.ts checks
// the answer against `temporal schedule list -o json`.
import { GrpcConnectError, GrpcStatusError, unaryCall } from './grpc-unary.js';
import { WIRE, WireReader, WireWriter } from './protobuf-wire.js';
import type { TemporalSettings } from './settings.js';

export interface ScheduleListItem {
  scheduleId: string;
  paused: boolean;
  /** The next time the schedule acts, if any (ScheduleListInfo.future_action_times[0]). */
  nextActionTime: Date | undefined;
}

export function listSchedulesRequest(namespace: string, pageToken: Uint8Array | undefined): Uint8Array {
  const w = new WireWriter().field(1, namespace);
  if (pageToken && pageToken.length > 0) w.field(3, pageToken);
  return w.finish();
}

/** Reads the fields of a message, calling `field` for each; those it does not take (false) are skipped. */
function readMessage(bytes: Uint8Array, field: (r: WireReader, no: number, wireType: number) => boolean): void {
  const r = new WireReader(bytes);
  while (r.pos < r.end) {
    const { field: no, wireType } = r.tag();
    if (!field(r, no, wireType)) r.skip(wireType);
  }
}

function readTimestamp(bytes: Uint8Array): Date {
  let seconds = 0;
  let nanos = 0;
  readMessage(bytes, (r, no, wt) => {
    if (no === 1 && wt === WIRE.varint) seconds = r.varint();
    else if (no === 2 && wt === WIRE.varint) nanos = r.varint();
    else return false;
    return true;
  });
  // Milliseconds, as the SDK's Date from a Timestamp.
  return new Date(seconds * 1000 + Math.floor(nanos / 1_000_000));
}

function readInfo(bytes: Uint8Array, item: ScheduleListItem): void {
  readMessage(bytes, (r, no, wt) => {
    if (no === 4 && wt === WIRE.varint) item.paused = r.varint() !== 0;
    else if (no === 6 && wt === WIRE.lengthDelimited) {
      const t = readTimestamp(r.bytes());
      item.nextActionTime ??= t;
    } else return false;
    return true;
  });
}

function readEntry(bytes: Uint8Array): ScheduleListItem {
  const item: ScheduleListItem = { scheduleId: '', paused: false, nextActionTime: undefined };
  readMessage(bytes, (r, no, wt) => {
    if (no === 1 && wt === WIRE.lengthDelimited) item.scheduleId = r.string();
    else if (no === 4 && wt === WIRE.lengthDelimited) readInfo(r.bytes(), item);
    else return false;
    return true;
  });
  return item;
}

export function decodeListSchedulesResponse(bytes: Uint8Array): {
  schedules: ScheduleListItem[];
  nextPageToken: Uint8Array | undefined;
} {
  const schedules: ScheduleListItem[] = [];
  let nextPageToken: Uint8Array | undefined;
  readMessage(bytes, (r, no, wt) => {
    if (no === 1 && wt === WIRE.lengthDelimited) schedules.push(readEntry(r.bytes()));
    else if (no === 2 && wt === WIRE.lengthDelimited) nextPageToken = r.bytes();
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
        request: listSchedulesRequest(opts.settings.namespace, pageToken),
        timeoutMs: opts.timeoutMs,
      });
    } catch (err) {
      if (err instanceof GrpcStatusError && err.code === 5)
        throw new NamespaceNotFoundError(`Namespace not found: '${opts.settings.namespace}'`);
      throw err;
    }
    const page = decodeListSchedulesResponse(answer);
    yield* page.schedules;
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined);
}

export { GrpcConnectError, GrpcStatusError };
