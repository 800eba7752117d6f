// Upgrades with runs open: every history listed in test/replay/histories/histories.json (made by an earlier release's workflow code, one
// run of each mode, test/replay/capture.ts) must replay on this checkout's workflow bundle without a
// nondeterminism error. A workflow change that adds, moves or removes a command without `patched` fails here,
// not in the runs a user has open when upgrading. No server: the SDK's replayer feeds the recorded events.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { pipelineWorkflowBundle } from '../../../temporal/worker.js';
import { pipelineDataConverter } from '../../../temporal/payload-codec.js';

// A CommonJS module: its namespace is its default export.
const { temporal } = proto;

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'replay', 'histories');
const entries = JSON.parse(fs.readFileSync(path.join(dir, 'histories.json'), 'utf8')) as Array<{
  file: string;
  mode: string;
  workflowId: string;
  status: string;
}>;

describe('workflow replay of earlier releases', () => {
  it('has a history of each run mode, and every history file is listed with its workflow id', () => {
    expect([...new Set(entries.map((e) => e.mode))].sort()).toEqual(['create-and-wait', 'results-sync', 'url-list']);
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.binpb'));
    expect(entries.map((e) => e.file).sort()).toEqual(files.sort());
  });

  it('every patched() marker of the workflow code is in some recorded history, so each of its branches is replayed', () => {
    // The ids as the workflow modules declare them (export const X_PATCH = 'scrape-etl-...').
    // The repository's workflows/ (this file is test/fast/workflows/).
    const workflowsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'workflows');
    const declared = fs
      .readdirSync(workflowsDir)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        [...fs.readFileSync(path.join(workflowsDir, f), 'utf8').matchAll(/_PATCH = '(scrape-etl-[\w-]+)'/g)].map(
          (m) => m[1]!,
        ),
      );
    expect(declared.length).toBeGreaterThan(5);
    const recorded = new Set<string>();
    for (const { file } of entries) {
      const history = temporal.api.history.v1.History.decode(fs.readFileSync(path.join(dir, file)));
      for (const e of history.events) {
        const m = e.markerRecordedEventAttributes;
        if (m?.markerName !== 'core_patch') continue;
        for (const p of Object.values(m.details ?? {})) {
          const data = p.payloads?.[0]?.data;
          if (data) recorded.add((JSON.parse(Buffer.from(data).toString()) as { id: string }).id);
        }
      }
    }
    expect(declared.filter((id) => !recorded.has(id))).toEqual([]);
  });

  for (const { file, workflowId, status } of entries) {
    it(`replays ${file}`, async () => {
      const history = temporal.api.history.v1.History.decode(fs.readFileSync(path.join(dir, file)));
      const { EventType } = temporal.api.enums.v1;
      expect(history.events[0]?.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
      expect(history.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name).toBe('pipelineWorkflow');
      // The run went to its end: replay checks every command the workflow issued on the way. A cancelled run's
      // end is its cancellation (CANCEL_PATCH: it finished its row, then ended CANCELLED).
      expect(history.events.at(-1)?.eventType).toBe(
        status === 'cancelled'
          ? EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED
          : EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
      );
      // The id it ran under: the workflow checks it against the pipeline's name before anything else.
      // With the payload codec of every worker: recorded plain payloads pass through it unchanged.
      await Worker.runReplayHistory(
        { workflowBundle: await pipelineWorkflowBundle(), replayName: file, dataConverter: pipelineDataConverter() },
        history,
        workflowId,
      );
    }, 60_000);
  }
});
