// Every activity the pipeline workflow calls, built from the worker's dependencies (client, destinations,
// tuning). The worker registers `createActivities(deps)`; the workflow imports only the `Activities` type, so
// activities never enter the workflow bundle.
import { checkActivities } from './checks.js';
import { controlActivities } from './control.js';
import type { ActivityDeps } from './deps.js';
import { exportActivities } from './exports.js';
import { notifyActivities } from './notify.js';
import { planActivities } from './plan.js';
import { resultsSyncActivities } from './results-sync.js';
import { retentionActivities } from './retention.js';
import { scrapingRunActivities } from './scraping-runs.js';
import { urlListActivities } from './url-lists.js';

export { createActivityDeps, type ActivityDeps, type ActivityDepsOptions, type OwnedActivityDeps } from './deps.js';

export function createActivities(deps: ActivityDeps) {
  return {
    ...planActivities(deps),
    ...controlActivities(deps),
    ...scrapingRunActivities(deps),
    ...urlListActivities(deps),
    ...resultsSyncActivities(deps),
    ...exportActivities(deps),
    ...notifyActivities(deps),
    ...retentionActivities(deps),
    ...checkActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
