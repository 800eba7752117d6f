/**
 * Checks of a loaded pipeline that need the world outside the file, made by `validate` and `run` before any
 * workflow starts: what no retry can fix (a destination that is not a database, a wrong password, a service that
 * is not configured) should fail in seconds at the command line, not after a workflow has started and retried.
 * The schema already checked everything the file alone decides (kinds, export table names, durations).
 */
import { probeDatabase, redactDatabaseUrl } from '../destinations/open.js';
import { destinationNameOfUrl, URL_FORMS } from '../destinations/url-forms.js';
import { kindOf } from '../kinds/index.js';
import type { PipelineIssue } from './errors.js';
import { positionInPipelineFile } from './loader.js';
import type { PipelineSpec } from './spec.js';
import { processSettings } from '../settings/process.js';
import type { Env } from '../settings/settings.js';

export interface PreflightOptions {
  /** Skip checks that need the network (a Postgres destination), e.g. on a CI machine that cannot reach it. */
  offline?: boolean;
  /** How long a network probe may take (default 5 s). */
  timeoutMs?: number;
}

/** Problems of the pipeline's destination, as issues of its file at `destination.database`. */
export async function destinationIssues(
  file: string,
  spec: PipelineSpec,
  opts: PreflightOptions = {},
): Promise<PipelineIssue[]> {
  const url = spec.destination.database;
  // Offline: a server destination is not contacted.
  const name = destinationNameOfUrl(url);
  if (opts.offline && name !== undefined && !URL_FORMS[name].file) return [];
  try {
    await probeDatabase(url, { timeoutMs: opts.timeoutMs ?? 5000 });
    return [];
  } catch (err) {
    const at = await positionInPipelineFile(file, ['destination', 'database']);
    // Not in the file: the loader took DATABASE_URL or the built-in default, which is where the fix goes.
    const origin = at ? '' : ' (not in the file: from DATABASE_URL or the default)';
    return [
      {
        file,
        line: at?.line ?? 1,
        col: at?.col ?? 1,
        path: 'destination.database',
        message: `${redactDatabaseUrl(url)}${origin}: ${(err as Error).message}`,
      },
    ];
  }
}

/**
 * For a run worked on by the worker in the `run` process (no worker polled the task queue): that worker reads the
 * service's address and token from this environment, so a missing one would only show as failing activities.
 * Returns what to set, or undefined when nothing is missing (or the kind never calls the service).
 */
export async function serviceSettingsProblem(
  spec: PipelineSpec,
  env: Env = processSettings().env,
): Promise<string | undefined> {
  if (kindOf(spec.kind).endpoints.length === 0) return undefined;
  const missing = ['SCRAPER_BASE_URL', 'SCRAPER_API_TOKEN'].filter((name) => !env[name]?.trim());
  if (missing.length > 0) {
    return (
      `pipeline kind '${spec.kind}' calls the scraping service, and the worker on this machine reads ${missing.join(' and ')} from this ` +
      `environment, but ${missing.length === 1 ? 'it is' : 'they are'} not set: export SCRAPER_BASE_URL=https://… and ` +
      `SCRAPER_API_TOKEN=… (API Tokens section of your console profile), or point SCRAPER_BASE_URL at \`scrape-etl simulate\` ` +
      `(or try \`scrape-etl demo\`, which needs neither)`
    );
  }
  // The client's own rules (https unless loopback, no credentials in the URL, a usable token), checked the same
  // way the worker will check them.
  const { ScraperClient } = await import('../client/index.js');
  try {
    new ScraperClient({ env });
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
}

/**
 * Webhook URLs that the worker could not expand or use: an unset `${VAR}`, a value that is not an http(s) URL.
 * `env` is the worker's environment (this one when `run` hosts the worker on the embedded server). Checked before
 * the run, so an alert that could never be sent is said at once instead of after the run, in history only.
 * The messages name variables and the scheme, never a URL's value (a Slack webhook URL is a credential).
 */
export async function notifyIssues(
  file: string,
  spec: PipelineSpec,
  env: Env = processSettings().env,
): Promise<PipelineIssue[]> {
  const { expandWebhookUrl } = await import('../alerts/notify-config.js');
  const issues: PipelineIssue[] = [];
  for (const [i, w] of (spec.notify?.webhooks ?? []).entries()) {
    const expanded = expandWebhookUrl(w.url, env);
    if (!('problem' in expanded)) continue;
    const at = await positionInPipelineFile(file, ['notify', 'webhooks', i, 'url']);
    issues.push({
      file,
      line: at?.line ?? 1,
      col: at?.col ?? 1,
      path: `notify.webhooks[${i}].url`,
      message: `${expanded.problem.replace('on this worker', 'in the environment of the worker (this shell, for `run` on the embedded server)')}; export it before the run, or change the URL`,
    });
  }
  return issues;
}
