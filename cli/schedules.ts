import { EXIT } from '../lib/exit-codes.js';
/**
 * Temporal Schedules built from pipeline files. The schedule id is the pipeline name; the action starts
 * `pipelineWorkflow` with the workflow id `<name>--scheduled`, to which Temporal appends the scheduled time
 * (`<name>--scheduled-2025-01-01T06:00:00Z`), so every scheduled run has its own id and the run key the workflow
 * sees in its own id is derived from the schedule's time, with no search attributes involved.
 */
import path from 'node:path';
import { ScheduleNotFoundError } from '@temporalio/client';
import type { Client, ScheduleDescription, ScheduleOptions, ScheduleOverlapPolicy, ScheduleUpdateOptions } from '@temporalio/client';
import type { OverlapPolicy, PipelineSpec } from '../pipelines/spec.js';
import { PIPELINE_WORKFLOW_TYPE, scheduledWorkflowIdPrefix } from '../temporal/contract.js';
import { pipelineScheduleAction } from '../temporal/start.js';
import { pipelineMemo } from '../temporal/visibility.js';
import { visibleInUi } from '../temporal/contract.js';
import { hexDigest } from '../db/hash.js';

export { scheduledWorkflowIdPrefix };
const HASH_MEMO_KEY = 'scrape_etl_config_hash';

const OVERLAP: Record<OverlapPolicy, ScheduleOverlapPolicy> = {
  skip: 'SKIP',
  buffer_one: 'BUFFER_ONE',
  buffer_all: 'BUFFER_ALL',
  cancel_other: 'CANCEL_OTHER',
  terminate_other: 'TERMINATE_OTHER',
  allow_all: 'ALLOW_ALL',
};

export function scheduleIdFor(spec: PipelineSpec): string {
  return spec.name;
}

/** The stable part of a schedule: what a pipeline file decides. Its hash tells whether an update is needed. */
function desiredConfig(spec: PipelineSpec & { schedule: NonNullable<PipelineSpec['schedule']> }, taskQueue: string) {
  return { spec, taskQueue, workflowType: PIPELINE_WORKFLOW_TYPE };
}

function configHash(config: unknown): string {
  return hexDigest('sha256', JSON.stringify(config)).slice(0, 16);
}

async function scheduleOptions(client: Client, spec: PipelineSpec & { schedule: NonNullable<PipelineSpec['schedule']> }, taskQueue: string, file: string) {
  const hash = configHash(desiredConfig(spec, taskQueue));
  const s = spec.schedule;
  return {
    spec: { cronExpressions: [s.cron], timezone: s.timezone },
    action: { ...(await pipelineScheduleAction(client, spec, taskQueue)), memo: { ...pipelineMemo(spec, file), [HASH_MEMO_KEY]: hash } },
    policies: { overlap: OVERLAP[s.overlap], catchupWindow: s.catchup_window },
    state: { paused: s.paused, note: `managed by scrape-etl from ${file}` },
    hash,
  };
}

export type ApplyOutcome = 'created' | 'updated' | 'unchanged' | 'deleted' | 'absent';

/** The pipeline file a schedule was applied from (absolute since scrape-etl records it so; older ones as given). */
export function scheduleSourceFile(d: ScheduleDescription): string | undefined {
  const fromAction = d.action.type === 'startWorkflow' ? d.action.memo?.['file'] : undefined;
  const file = fromAction ?? d.memo?.['file'];
  return typeof file === 'string' && file !== '' ? file : undefined;
}

/**
 * Two files whose pipelines share a `name:` would take turns replacing one schedule (its id is the name), each
 * apply silently undoing the other's: applying from a second file is refused unless forced.
 */
export class ScheduleSourceConflict extends Error {
  readonly exitCode = EXIT.usage;
  constructor(id: string, current: string, file: string) {
    super(
      `${file}: schedule '${id}' was applied from ${current}, another file with the same pipeline name; rename one pipeline (\`name:\`), ` +
        `or replace the schedule with this file's: scrape-etl schedule apply --force ${file}`,
    );
  }
}

export async function applySchedule(client: Client, spec: PipelineSpec, file: string, taskQueue: string, prune: boolean, force = false): Promise<ApplyOutcome> {
  const id = scheduleIdFor(spec);
  file = path.resolve(file);
  const handle = client.schedule.getHandle(id);
  let current: ScheduleDescription | undefined;
  try {
    current = await handle.describe();
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
  }
  const source = current ? scheduleSourceFile(current) : undefined;
  const otherSource = source !== undefined && path.resolve(source) !== file;
  if (otherSource && !force && (spec.schedule !== undefined || (prune && current !== undefined))) throw new ScheduleSourceConflict(id, source, file);
  if (spec.schedule === undefined) {
    if (!prune || current === undefined) return 'absent';
    await handle.delete();
    return 'deleted';
  }
  const { hash, ...opts } = await scheduleOptions(client, { ...spec, schedule: spec.schedule }, taskQueue, file);
  if (current === undefined) {
    const create: ScheduleOptions = { scheduleId: id, ...opts, memo: { pipeline: visibleInUi(spec.name), file: visibleInUi(file) } };
    await client.schedule.create(create);
    return 'created';
  }
  const currentHash = current.action.type === 'startWorkflow' ? current.action.memo?.[HASH_MEMO_KEY] : undefined;
  // The file did not change since the last apply: leave the schedule alone (a manual pause stays in place).
  if (currentHash === hash && !otherSource) return 'unchanged';
  await handle.update((): ScheduleUpdateOptions => opts);
  return 'updated';
}
