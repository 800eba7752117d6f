// The worker's side of alerts: its environment, against which webhook URL templates are expanded when a webhook
// is sent, and the worker-wide default webhook for pipelines whose file names none (its settings). Read once when
// the worker's activities are built, so a malformed default fails the worker's start rather than the first alert.
import { interpolate } from '../pipelines/env.js';
import { isDuration } from '../pipelines/duration.js';
import {
  DEFAULT_NOTIFY_ON,
  NOTIFY_EVENTS,
  NOTIFY_FORMATS,
  type NotifyEventName,
  type NotifyFormat,
  type NotifyWebhookSpec,
} from '../pipelines/spec.js';
import { settingsFor } from '../settings/process.js';
import { isSettings, type Env, type Settings } from '../settings/settings.js';

/** The same default as a pipeline file's webhook `on`. */
const DEFAULT_ON: NotifyEventName[] = [...DEFAULT_NOTIFY_ON];

export interface NotifyConfig {
  /** Where `${VAR}` in webhook URLs is looked up: the worker's environment. */
  env: Env;
  /** SCRAPE_ETL_NOTIFY_URL & co: used for pipelines whose file has no `notify.webhooks`. */
  defaultWebhooks: NotifyWebhookSpec[];
  /** SCRAPE_ETL_NOTIFY_DURATION_OVER: duration_over for pipelines whose file sets none. */
  defaultDurationOver: string | undefined;
  /** SCRAPE_ETL_WEB_UI_URL (or the embedded dev server's UI): base of the run's link in messages. */
  webUiUrl: string | undefined;
  /** Per webhook request (SCRAPE_ETL_NOTIFY_TIMEOUT_MS, default 10000, at most 15000). */
  timeoutMs: number;
}

/** The alert settings of `from` (an environment is read as settings; default: this process's). */
export function readNotifyConfig(from?: Settings | Env, overrides: { webUiUrl?: string } = {}): NotifyConfig {
  const s = from !== undefined && isSettings(from) ? from : settingsFor(from);
  const env = s.env;
  const url = s.notifyUrl;
  const format: NotifyFormat = s.notifyFormat;
  if (!NOTIFY_FORMATS.includes(format))
    throw new Error(`SCRAPE_ETL_NOTIFY_FORMAT='${format}' is not one of ${NOTIFY_FORMATS.join(', ')}`);
  const on = s.notifyOn ?? [];
  for (const e of on) {
    if (!(NOTIFY_EVENTS as readonly string[]).includes(e))
      throw new Error(`SCRAPE_ETL_NOTIFY_ON: '${e}' is not one of ${NOTIFY_EVENTS.join(', ')}`);
  }
  const durationOver = s.notifyDurationOver;
  if (durationOver !== undefined && !isDuration(durationOver))
    throw new Error(`SCRAPE_ETL_NOTIFY_DURATION_OVER='${durationOver}' is not a duration like '30m'`);
  // At most 15 s (the setting's check): below the notify activity's 20 s heartbeat timeout (workflows/alerts.ts), or
  // a slow receiver would look like a dead worker.
  const timeout = s.notifyTimeoutMs;
  if (url) {
    const expanded = expandWebhookUrl(url, env);
    // The message names no part of the URL: it may be a secret.
    if ('problem' in expanded) throw new Error(`SCRAPE_ETL_NOTIFY_URL: ${expanded.problem}`);
  }
  return {
    env,
    defaultWebhooks: url ? [{ url, format, on: on.length > 0 ? (on as NotifyEventName[]) : [...DEFAULT_ON] }] : [],
    defaultDurationOver: durationOver,
    webUiUrl: (overrides.webUiUrl ?? s.webUiUrl) || undefined,
    timeoutMs: timeout,
  };
}

/**
 * A webhook URL template expanded against the worker's environment. Problems are described without the URL's
 * value (a Slack webhook URL is itself a credential): only variable names and the scheme are named.
 */
export function expandWebhookUrl(template: string, env: Env): { url: URL } | { problem: string } {
  const { value, missing } = interpolate(template, env);
  if (missing.length > 0) return { problem: `environment variable ${missing.join(', ')} is not set on this worker` };
  if (!URL.canParse(value))
    return { problem: `the webhook URL${template.includes('${') ? ` from ${template}` : ''} is not a URL` };
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { problem: `the webhook URL must be http(s), not ${url.protocol}` };
  return { url };
}
