// Starts a worker thread on one of the project's ES modules. The compiled command runs dist/**/*.js, which a
// worker loads as is. Tests and benches run the TypeScript sources (vitest, tsx): a worker does not inherit their
// loader (not even through `execArgv: ['--import', 'tsx']` on Node 20), so a .ts module is started by a bootstrap
// that registers tsx in the thread first. tsx is a development dependency: the compiled command never takes
// that branch.
import { Worker, type ResourceLimits } from 'node:worker_threads';

export function startModuleWorker(moduleUrl: URL, workerData: unknown, resourceLimits: ResourceLimits = {}): Worker {
  // A compiled module needs no loader: the thread does not inherit the process's (a bench or test that runs the
  // command's JavaScript under tsx would otherwise start tsx again in every thread, paying its start-up each time).
  if (!moduleUrl.pathname.endsWith('.ts')) return new Worker(moduleUrl, { workerData, execArgv: [], resourceLimits });
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(moduleUrl.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData, resourceLimits });
}

/**
 * The sibling module `name` (written with .js, as imports are) next to `importMetaUrl`, with the extension the caller
 * itself has: .ts when running from source, .js when compiled.
 */
export function siblingModule(importMetaUrl: string, name: string): URL {
  const ext = importMetaUrl.endsWith('.ts') ? '.ts' : '.js';
  return new URL(name.replace(/\.js$/, ext), importMetaUrl);
}
