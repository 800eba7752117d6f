// Where a worker's workflow code comes from. Compiled (dist/), the bundle was built once by `npm run build`
// (scripts/postbuild.ts) and the worker only reads the file: bundling takes seconds of CPU and would otherwise
// be paid by every worker start. From the TypeScript sources (vitest and tsx import this file as .ts) the
// bundle is built in-process from workflows/index.ts, so tests never run a stale bundle of older sources.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkflowBundleOption } from '@temporalio/worker';

const here = path.dirname(fileURLToPath(import.meta.url));

/** true when this module runs as TypeScript source rather than compiled JavaScript from dist/. */
export const RUNNING_FROM_SOURCE = import.meta.url.endsWith('.ts');

/** Entry of the workflow code: workflows/index.ts from the sources, dist/workflows/index.js when compiled. */
export const WORKFLOWS_PATH = path.resolve(here, '..', 'workflows', RUNNING_FROM_SOURCE ? 'index.ts' : 'index.js');

/** The bundle `npm run build` writes (dist/workflow-bundle.js); only compiled code reads it. */
export const PREBUILT_BUNDLE_PATH = path.resolve(here, '..', 'workflow-bundle.js');

export type WorkflowBundleSource =
  { kind: 'prebuilt'; path: string } | { kind: 'bundled-at-start'; from: string; ms: number };

const noop = () => {};
const quietBundlerLogger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: (m: string) => process.stderr.write(`${m}\n`),
  log: noop,
};

/** Runs the SDK's bundler (webpack) on the workflow code. Build time, or tests from source. */
export async function bundleWorkflows(workflowsPath: string = WORKFLOWS_PATH): Promise<{ code: string }> {
  const { bundleWorkflowCode } = await import('@temporalio/worker');
  return bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });
}

let cached: Promise<{ option: WorkflowBundleOption; source: WorkflowBundleSource }> | undefined;

/** The workflow bundle for this process (resolved once) and where it came from, for the worker's log. */
export function resolveWorkflowBundle(): Promise<{ option: WorkflowBundleOption; source: WorkflowBundleSource }> {
  cached ??= (async () => {
    if (RUNNING_FROM_SOURCE) {
      const started = Date.now();
      const bundle = await bundleWorkflows();
      return {
        option: bundle,
        source: { kind: 'bundled-at-start' as const, from: WORKFLOWS_PATH, ms: Date.now() - started },
      };
    }
    // Compiled code never falls back to bundling: a missing file means the build did not finish, and a worker
    // that silently spent seconds bundling (from dist/, possibly half-written) would hide that.
    if (!fs.existsSync(PREBUILT_BUNDLE_PATH)) {
      throw new Error(`no prebuilt workflow bundle at ${PREBUILT_BUNDLE_PATH}; run \`npm run build\``);
    }
    return {
      option: { codePath: PREBUILT_BUNDLE_PATH },
      source: { kind: 'prebuilt' as const, path: PREBUILT_BUNDLE_PATH },
    };
  })();
  // A failed attempt is not remembered: the next caller tries again.
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}

export function describeWorkflowBundle(source: WorkflowBundleSource): string {
  return source.kind === 'prebuilt'
    ? `workflow bundle: prebuilt ${source.path}`
    : `workflow bundle: bundled at start from ${source.from} in ${source.ms} ms`;
}
