// Mutable state of one simulator: scrapers, scraping runs and results, with id counters.
//
// Ids come from counters that start at fixed values (documented in README.md) so tests can predict them:
// scrapers 1001, scraping runs 5001, run records 9001, results 1. A run's result ids are reserved as one
// consecutive block when the run is created (so `truth.runResults(id)` is known at once); the results join
// `/api/results` only when the run finishes. Runs created with the same duration finish in creation order,
// so the list grows at the top like the real one.
import { formatTimestamp } from './clock.js';
import type { GeneratedResult, JsonObject } from './generate/results.js';
import type { PdfKeyword } from './validate.js';

export const ID_START = { scraper: 1001, scrapingRun: 5001, runRecord: 9001, result: 1 } as const;

export type ScraperKind = 'pdf' | 'leads-search-engine' | 'leads-social';
export type RunFate = 'succeed' | 'fail' | 'hang';
export type RunStatus = 'running' | 'succeeded' | 'failed';

export interface ScraperState {
  id: number;
  name: string;
  kind: ScraperKind;
  /** Short-form `url`/`urls`: the request's URL, or ['Default'] when it has none. */
  urls: string[];
  createdAtMs: number;
  /** PDF scrapers: the keywords that the full form's `workflow` mirrors. */
  keywords: PdfKeyword[];
}

export interface RunState {
  id: number;
  recordId: number;
  scraper: ScraperState;
  /** The run record's scrapped_url / scraped_url: the keyword (PDF) or 'Default' (leads). */
  scrapedUrl: string;
  createdAtMs: number;
  durationMs: number;
  fate: RunFate;
  firstResultId: number;
  resultCount: number;
  generate: (index: number) => GeneratedResult;
  finished: boolean;
  materialized?: ResultRecord[];
  /** Fields set on each of its result records (SimState.resultFields when it was created); absent: none. */
  resultFields?: JsonObject;
}

export interface ResultRecord {
  id: number;
  scraper_id: number;
  scraping_run_id: number;
  scraper_name: string;
  scraped_url: string;
  status: 'succeeded';
  content: JsonObject;
  created_at: string;
  updated_at: string;
}

export class SimState {
  readonly scrapers: ScraperState[] = [];
  readonly runs = new Map<number, RunState>();
  private pending: RunState[] = [];
  /** Listed results in ascending id order; served reversed (newest first). */
  private listed: ResultRecord[] = [];
  private next: { scraper: number; scrapingRun: number; runRecord: number; result: number } = { ...ID_START };

  /**
   * Fields set on the content of every result of runs created from now on (a scraper whose output changes shape:
   * a new field, or a field whose type changes). Captured when a run is created, so its results never change.
   */
  contentDrift: JsonObject | null = null;

  /**
   * Fields set on every result record (not its content) of runs created from now on: a service whose records carry
   * a value their schema does not promise, such as a `created_at` that is not a timestamp. Captured at creation.
   */
  resultFields: JsonObject | null = null;

  constructor(private readonly seed: number) {}

  createScraper(
    kind: ScraperKind,
    name: string,
    urls: string[],
    nowMs: number,
    keywords: PdfKeyword[] = [],
  ): ScraperState {
    const scraper: ScraperState = { id: this.next.scraper++, name, kind, urls, createdAtMs: nowMs, keywords };
    this.scrapers.push(scraper);
    return scraper;
  }

  createRun(
    scraper: ScraperState,
    scrapedUrl: string,
    resultCount: number,
    generate: (index: number) => GeneratedResult,
    nowMs: number,
    durationMs: number,
    fate: (runId: number) => RunFate,
  ): RunState {
    const id = this.next.scrapingRun++;
    const drift = this.contentDrift;
    const run: RunState = {
      id,
      recordId: this.next.runRecord++,
      scraper,
      scrapedUrl,
      createdAtMs: nowMs,
      durationMs,
      fate: fate(id),
      firstResultId: this.next.result,
      resultCount,
      generate: drift ? (index) => drifted(generate(index), drift) : generate,
      finished: false,
      ...(this.resultFields ? { resultFields: structuredClone(this.resultFields) } : {}),
    };
    this.next.result += resultCount;
    this.runs.set(id, run);
    if (run.fate !== 'hang') this.pending.push(run);
    return run;
  }

  status(run: RunState, nowMs: number): RunStatus {
    if (run.fate === 'hang' || nowMs - run.createdAtMs < run.durationMs) return 'running';
    return run.fate === 'fail' ? 'failed' : 'succeeded';
  }

  /** Finishes every run whose time has come, in order of finish time then id, so the outcome is deterministic. */
  refresh(nowMs: number): void {
    if (this.pending.length === 0) return;
    const due = this.pending.filter((r) => nowMs - r.createdAtMs >= r.durationMs);
    if (due.length === 0) return;
    this.pending = this.pending.filter((r) => nowMs - r.createdAtMs < r.durationMs);
    due.sort((a, b) => a.createdAtMs + a.durationMs - (b.createdAtMs + b.durationMs) || a.id - b.id);
    let outOfOrder = false;
    for (const run of due) {
      run.finished = true;
      if (run.fate !== 'succeed') continue;
      for (const rec of this.materialize(run)) {
        const last = this.listed[this.listed.length - 1];
        if (last !== undefined && last.id > rec.id) outOfOrder = true;
        this.listed.push(rec);
      }
    }
    if (outOfOrder) this.listed.sort((a, b) => a.id - b.id);
  }

  /** The run's result records (ids reserved at creation); empty for a run that fails or hangs. */
  materialize(run: RunState): ResultRecord[] {
    if (run.fate !== 'succeed') return [];
    if (run.materialized) return run.materialized;
    const finishedAt = run.createdAtMs + run.durationMs;
    const out: ResultRecord[] = new Array(run.resultCount);
    for (let i = 0; i < run.resultCount; i++) {
      const id = run.firstResultId + i;
      const g = run.generate(i);
      const ts = formatTimestamp(finishedAt, this.seed, 'result', id);
      out[i] = {
        id,
        scraper_id: run.scraper.id,
        scraping_run_id: run.id,
        scraper_name: run.scraper.name,
        scraped_url: g.scraped_url,
        status: 'succeeded',
        content: g.content,
        created_at: ts,
        updated_at: ts,
        ...(run.resultFields as Partial<ResultRecord> | undefined),
      };
    }
    run.materialized = out;
    return out;
  }

  /** Page of listed results, newest first; page starts at 1. */
  resultsPage(page: number, perPage: number): ResultRecord[] {
    const n = this.listed.length;
    const start = (page - 1) * perPage;
    const out: ResultRecord[] = [];
    for (let i = start; i < Math.min(n, start + perPage); i++) out.push(this.listed[n - 1 - i] as ResultRecord);
    return out;
  }

  /** All listed results, newest first. */
  allResults(): ResultRecord[] {
    return this.listed.slice().reverse();
  }

  /** Page of scrapers in creation order (ascending id, as the real example lists them). */
  scrapersPage(page: number, perPage: number): ScraperState[] {
    const start = (page - 1) * perPage;
    return this.scrapers.slice(start, start + perPage);
  }

  counters(): { scraper: number; scrapingRun: number; runRecord: number; result: number } {
    return { ...this.next };
  }
}

function drifted(g: GeneratedResult, drift: JsonObject): GeneratedResult {
  return { ...g, content: { ...g.content, ...structuredClone(drift) } };
}
