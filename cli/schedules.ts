import { EXIT } from '../lib/exit-codes.js';
/**
 * Temporal Schedules built from pipeline files. The schedule id is the pipeline name; the action starts
 * `pipelineWorkflow` with the workflow id `<name>--scheduled`, to which Temporal appends the scheduled time
 * (`<name>--scheduled-2025-01-01T06:00:00Z`), so every scheduled run has its own id and the run key the workflow
 * sees in its own id is derived from the schedule's time, with no search attributes involved.
 */
import path from 'node:path';
import { ScheduleNotFoundError } from '@temporalio/client';
import type {
  Client,
  ScheduleDescription,
  ScheduleOptions,
  ScheduleOverlapPolicy,
  ScheduleUpdateOptions,
} from '@temporalio/client';
import type { OverlapPolicy, PipelineSpec } from '../pipelines/spec.js';
import { PIPELINE_WORKFLOW_TYPE, scheduledWorkflowIdPrefix } from '../temporal/contract.js';
import { pipelineScheduleAction } from '../temporal/start.js';
import { pipelineMemo } from '../temporal/visibility.js';
import { visibleInUi } from '../temporal/contract.js';
import { hexDigest } from '../db/model/hash.js';

export { scheduledWorkflowIdPrefix };
const HASH_MEMO_KEY = 'scrape_etl_config_hash';
/** What the file said at the last apply, field by field: what changed is said, and whether the file changed `paused`. */
const APPLIED_MEMO_KEY = 'scrape_etl_applied';

interface AppliedFields {
  cron: string;
  timezone: string;
  overlap: string;
  catchup_window: string;
  paused: boolean;
  task_queue: string;
  /** The rest of the pipeline (request, destination, exports, …), hashed: said as one change. */
  pipeline: string;
}

function appliedFields(
  spec: PipelineSpec & { schedule: NonNullable<PipelineSpec['schedule']> },
  taskQueue: string,
): AppliedFields {
  const { schedule: s, ...rest } = spec;
  return {
    cron: s.cron,
    timezone: s.timezone,
    overlap: s.overlap,
    catchup_window: s.catchup_window,
    paused: s.paused,
    task_queue: taskQueue,
    pipeline: configHash(rest),
  };
}

function readApplied(d: ScheduleDescription): AppliedFields | undefined {
  const v = d.action.type === 'startWorkflow' ? d.action.memo?.[APPLIED_MEMO_KEY] : undefined;
  return v !== null && typeof v === 'object' && typeof (v as AppliedFields).cron === 'string'
    ? (v as AppliedFields)
    : undefined;
}

/** The fields that changed, as `apply` prints them (`cron "0 3 * * *" → "0 4 * * *"`); `paused` is said apart. */
function fieldChanges(before: AppliedFields, after: AppliedFields): string[] {
  const out: string[] = [];
  if (before.cron !== after.cron) out.push(`cron "${before.cron}" → "${after.cron}"`);
  for (const k of ['timezone', 'overlap', 'catchup_window'] as const)
    if (before[k] !== after[k]) out.push(`${k} ${before[k]} → ${after[k]}`);
  if (before.task_queue !== after.task_queue) out.push(`task queue ${before.task_queue} → ${after.task_queue}`);
  if (before.pipeline !== after.pipeline) out.push('the pipeline (request, destination or exports)');
  return out;
}

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

async function scheduleOptions(
  client: Client,
  spec: PipelineSpec & { schedule: NonNullable<PipelineSpec['schedule']> },
  taskQueue: string,
  file: string,
) {
  const hash = configHash(desiredConfig(spec, taskQueue));
  const s = spec.schedule;
  return {
    spec: { cronExpressions: [s.cron], timezone: s.timezone },
    action: {
      ...(await pipelineScheduleAction(client, spec, taskQueue)),
      memo: { ...pipelineMemo(spec, file), [HASH_MEMO_KEY]: hash, [APPLIED_MEMO_KEY]: appliedFields(spec, taskQueue) },
    },
    policies: { overlap: OVERLAP[s.overlap], catchupWindow: s.catchup_window },
    state: { paused: s.paused, note: `managed by scrape-etl from ${file}` },
    hash,
  };
}

export type ApplyOutcome = 'created' | 'updated' | 'unchanged' | 'deleted' | 'absent';

export interface ApplyResult {
  outcome: ApplyOutcome;
  /** For 'updated': what changed, one phrase each (fields, then a change of `paused` the file made). */
  changes?: string[];
  /** For 'updated': whether the schedule is paused now. */
  paused?: boolean;
  /** For 'updated': a pause or unpause made by hand that the apply kept, as a sentence. */
  kept?: string;
}

/** `apply`'s line for one schedule. */
export function applyLine(id: string, r: ApplyResult): string {
  if (r.outcome === 'absent') return `${id}: no schedule section (nothing to apply)`;
  if (r.outcome !== 'updated') return `${id}: ${r.outcome}`;
  return `${id}: updated${r.changes && r.changes.length > 0 ? `: ${r.changes.join(', ')}` : ''}${r.kept ? `; ${r.kept}` : ''}`;
}

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

export async function applySchedule(
  client: Client,
  spec: PipelineSpec,
  file: string,
  taskQueue: string,
  prune: boolean,
  force = false,
): Promise<ApplyOutcome> {
  return (await applyScheduleChanges(client, spec, file, taskQueue, prune, force)).outcome;
}

/**
 * Creates or updates the pipeline's schedule and says what changed. A pause (or unpause) made with `schedule pause`
 * is kept unless the file itself changed `paused` since the last apply: the file decides only what it changed.
 */
export async function applyScheduleChanges(
  client: Client,
  spec: PipelineSpec,
  file: string,
  taskQueue: string,
  prune: boolean,
  force = false,
): Promise<ApplyResult> {
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
  if (otherSource && !force && (spec.schedule !== undefined || (prune && current !== undefined)))
    throw new ScheduleSourceConflict(id, source, file);
  if (spec.schedule === undefined) {
    if (!prune || current === undefined) return { outcome: 'absent' };
    await handle.delete();
    return { outcome: 'deleted' };
  }
  const { hash, ...opts } = await scheduleOptions(client, { ...spec, schedule: spec.schedule }, taskQueue, file);
  if (current === undefined) {
    const create: ScheduleOptions = {
      scheduleId: id,
      ...opts,
      memo: { pipeline: visibleInUi(spec.name), file: visibleInUi(file) },
    };
    await client.schedule.create(create);
    return { outcome: 'created' };
  }
  const currentHash = current.action.type === 'startWorkflow' ? current.action.memo?.[HASH_MEMO_KEY] : undefined;
  // The file did not change since the last apply: leave the schedule alone (a manual pause stays in place).
  if (currentHash === hash && !otherSource) return { outcome: 'unchanged' };
  const before = readApplied(current);
  const after = appliedFields({ ...spec, schedule: spec.schedule }, taskQueue);
  // Applied by an earlier version, which kept no fields: the file's paused is taken as unchanged (a pause stays).
  const changes = before ? fieldChanges(before, after) : ['the whole schedule (last applied by an earlier scrape-etl)'];
  if (otherSource) changes.push(`file ${source} → ${file}`);
  const filePausedChanged = before !== undefined && before.paused !== after.paused;
  const nowPaused = current.state.paused;
  let paused = nowPaused;
  let kept: string | undefined;
  if (filePausedChanged) {
    paused = after.paused;
    changes.push(
      after.paused
        ? "paused (the file's paused: true)"
        : `${nowPaused ? 'paused → active' : 'active'} (the file's paused: false)`,
    );
  } else if (nowPaused && !after.paused) {
    kept = `stays paused (paused with \`schedule pause\`; \`scrape-etl schedule unpause ${id}\` resumes it)`;
  } else if (!nowPaused && after.paused) {
    kept = `stays active (unpaused with \`schedule unpause\`; \`scrape-etl schedule pause ${id}\` pauses it)`;
  }
  const state = filePausedChanged ? opts.state : { paused, note: current.state.note ?? opts.state.note };
  await handle.update((): ScheduleUpdateOptions => ({ ...opts, state }));
  return { outcome: 'updated', changes, paused, ...(kept ? { kept } : {}) };
}
