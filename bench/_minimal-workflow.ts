// Bench-only workflow (not part of the product): the smallest durable shape a pipeline run can have on Temporal,
// a workflow that runs one activity and returns. bench/many-runs.ts measures what the Temporal server spends on
// such runs, the part of its floor that no design of the pipeline workflow can go below.
import { proxyActivities } from '@temporalio/workflow';

const { minimalActivity } = proxyActivities<{ minimalActivity(n: number): Promise<number> }>({
  startToCloseTimeout: '1m',
});

export async function minimalRun(n: number): Promise<number> {
  return minimalActivity(n);
}
