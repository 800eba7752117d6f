// The scraper and run shapes of the create-and-run responses, the scrapers list and the run detail.
import { formatTimestamp } from '../clock.js';
import type { ResultRecord, RunState, RunStatus, ScraperState } from '../state.js';
import type { JsonObject } from './results.js';

export const QUEUED_MESSAGE = 'Scraper created and queued successfully.';

export function scraperTimestamp(seed: number, s: ScraperState): string {
  return formatTimestamp(s.createdAtMs, seed, 'scraper', s.id);
}

export function shortScraper(seed: number, s: ScraperState): JsonObject {
  const ts = scraperTimestamp(seed, s);
  return {
    id: s.id,
    name: s.name,
    url: [...s.urls],
    urls: [...s.urls],
    scheduled: false,
    schedule: null,
    created_at: ts,
    updated_at: ts,
  };
}

export function listScraper(seed: number, s: ScraperState): JsonObject {
  const ts = scraperTimestamp(seed, s);
  return {
    id: s.id,
    name: s.name,
    urls: [...s.urls],
    scheduled: false,
    schedule: null,
    schedule_explanation: null,
    created_at: ts,
    updated_at: ts,
  };
}

/** Full form nested in PDF run records: every field of the spec's table, null where only null is observed. */
export function fullScraper(seed: number, s: ScraperState, userId: number): JsonObject {
  const ts = scraperTimestamp(seed, s);
  return {
    id: s.id,
    user_id: userId,
    sharing: false,
    share_uuid: null,
    name: s.name,
    type: 'pdf',
    urls: 'Default',
    pdf_urls: 'Default',
    ai_prompt: null,
    ai_scope: null,
    headers: null,
    cookies: null,
    user_agent: null,
    disabled_resources: null,
    locale: null,
    screenshot_type: null,
    cron: null,
    delay: 0,
    html_wanted: false,
    screenshot_wanted: false,
    scheduled: false,
    cron_timezone: 'UTC',
    paginate: 0,
    pagination_type: null,
    infinite_pagination_type: null,
    infinite_pagination_seconds: null,
    infinite_pagination_text: null,
    infinite_pagination_css_selector: null,
    infinite_pagination_n_selector: null,
    load_more_selector: null,
    pagination_query_parameter: null,
    pagination_next_page_selector: null,
    pagination_limit_type: null,
    pagination_max_page: null,
    max_next_page: null,
    pagination_max_variable: null,
    cron_minutes: '*',
    cron_hours: '*',
    cron_day_of_month: '*',
    cron_month: '*',
    cron_day_of_week: '*',
    cron_minutes_n_detail: null,
    cron_minutes_x_detail: null,
    cron_hours_n_detail: null,
    cron_hours_x_detail: null,
    cron_day_of_month_x_detail: null,
    cron_month_x_detail: null,
    cron_day_of_week_x_detail: null,
    click_action_enabled: false,
    click_action_selector: null,
    click_action_wait: 'no',
    workflow: [
      {
        type: 'options',
        data: {
          keywords: s.keywords.map((k) => ({ type: 'keyword', data: { keyword: k.keyword, prompt: k.prompt } })),
        },
      },
    ],
    version: 2,
    proxy_type: 'rotation',
    proxy_host: null,
    proxy_port: null,
    proxy_username: null,
    proxy_password: null,
    parsers: null,
    deleted_at: null,
    external_auth: null,
    created_at: ts,
    updated_at: ts,
  };
}

/** Element of `results` in a create-and-run response; PDF records nest the full-form scraper. */
export function runRecord(seed: number, run: RunState, userId: number): JsonObject {
  const ts = formatTimestamp(run.createdAtMs, seed, 'run-record', run.recordId);
  const rec: JsonObject = {
    id: run.recordId,
    scraping_run_id: run.id,
    user_id: userId,
    scraper_id: run.scraper.id,
    scraper_name: run.scraper.name,
    scrapped_url: run.scrapedUrl,
    scraped_url: run.scrapedUrl,
    status: 'running',
    created_at: ts,
    updated_at: ts,
  };
  if (run.scraper.kind === 'pdf') rec['scraper'] = fullScraper(seed, run.scraper, userId);
  return rec;
}

export function runDetail(seed: number, run: RunState, status: RunStatus, results: ResultRecord[]): JsonObject {
  return {
    id: run.id,
    scraper_id: run.scraper.id,
    status,
    results: results as unknown as JsonObject[],
    created_at: formatTimestamp(run.createdAtMs, seed, 'run', run.id),
  };
}
