// Create-and-run responses -> scrapers + run_records; scraping-run detail -> scraping_runs + its results.
import type { CreateAndRunResponse, ListScraper, ScrapingRunResponse } from '../../../client/schemas.js';
import type { ResultTableName } from '../tables.js';
import { flattenResultRecords } from './results.js';
import { asJson, asText, push, type RowsByTable } from './values.js';

export function flattenCreateRun(response: CreateAndRunResponse): RowsByTable {
  const out: RowsByTable = {};
  const s = response.scraper;
  // The short form has no type; PDF responses carry it in the nested full-form scraper of each run record.
  const type = response.results.find((r) => r.scraper !== undefined)?.scraper?.type ?? null;
  const explanation: unknown = (s as Record<string, unknown>)['schedule_explanation'];
  push(out, 'scrapers', {
    id: s.id,
    name: s.name,
    type,
    urls: asJson(s.urls),
    scheduled: s.scheduled,
    schedule: s.schedule,
    schedule_explanation: asText(explanation),
    created_at: s.created_at,
    updated_at: s.updated_at,
  });
  for (const r of response.results) {
    push(out, 'run_records', {
      id: r.id,
      scraping_run_id: r.scraping_run_id,
      user_id: r.user_id,
      scraper_id: r.scraper_id,
      scraper_name: r.scraper_name,
      scrapped_url: r.scrapped_url,
      scraped_url: r.scraped_url,
      status: r.status,
      created_at: r.created_at,
      updated_at: r.updated_at,
      scraper: asJson(r.scraper),
    });
  }
  return out;
}

export function flattenScrapingRun(response: ScrapingRunResponse, resultTable: ResultTableName): RowsByTable {
  const run = response.data;
  const out = flattenResultRecords(run.results, resultTable);
  push(out, 'scraping_runs', {
    id: run.id,
    scraper_id: run.scraper_id,
    status: run.status,
    created_at: run.created_at,
  });
  return out;
}

/**
 * A scraper as `GET /api/scrapers` lists it: what is known of a scraper adopted after its create answer was lost
 * (the run records that answer held are not listed anywhere, so only the scraper row can be written).
 */
export function flattenListedScraper(s: ListScraper): RowsByTable {
  const out: RowsByTable = {};
  push(out, 'scrapers', {
    id: s.id,
    name: s.name,
    type: null,
    urls: asJson(s.urls),
    scheduled: s.scheduled,
    schedule: s.schedule,
    schedule_explanation: asText(s.schedule_explanation),
    created_at: s.created_at,
    updated_at: s.updated_at,
  });
  return out;
}
