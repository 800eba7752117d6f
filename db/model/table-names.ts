// Names of the model's data tables and how a run's rows are grouped when shown: content first, bookkeeping last.
// Light module (no driver, no drizzle), so the CLI's summary and read-only commands can import it.

/** Tables written by loads (everything except the two control tables), parents before children: the upsert order. */
export const DATA_TABLES = [
  'scrapers',
  'run_records',
  'scraping_runs',
  'scraper_results',
  'pdf_results',
  'leads_results',
  'job_records',
  'marketplace_shops',
  'marketplace_products',
  'marketplace_product_models',
  'marketplace_model_stocks',
  'marketplace_product_attributes',
  'marketplace_product_categories',
  'marketplace_product_tier_variations',
  'marketplace_product_tier_variation_options',
  'marketplace_product_images',
  'marketplace_price_history',
] as const;
export type DataTableName = (typeof DATA_TABLES)[number];

/**
 * The service's bookkeeping (the scrapers a run created, their run records and scraping runs), as opposed to the data a
 * pipeline is for: counted apart in `run`'s summary and `status`, so that "rows" means data.
 */
export const BOOKKEEPING_TABLES = [
  'scrapers',
  'run_records',
  'scraping_runs',
] as const satisfies readonly DataTableName[];

const BOOKKEEPING: ReadonlySet<string> = new Set(BOOKKEEPING_TABLES);
const MODEL: ReadonlySet<string> = new Set(DATA_TABLES);

export function isBookkeepingTable(table: string): boolean {
  return BOOKKEEPING.has(table);
}

/** 0: a pipeline's inferred content tables (`<pipeline>_items` and its children), 1: model data tables, 2: bookkeeping. */
export function tableRank(table: string): 0 | 1 | 2 {
  if (BOOKKEEPING.has(table)) return 2;
  return MODEL.has(table) ? 1 : 0;
}

/** Rows by table in the order they are shown: content tables first, then model data tables, bookkeeping last. */
export function orderedRows(rows: Record<string, number>): Array<[string, number]> {
  return Object.entries(rows).sort(([a], [b]) => tableRank(a) - tableRank(b) || a.localeCompare(b));
}

/**
 * A run's row totals as every surface states them (`run`, `status`, the console, up's log, webhooks): data rows
 * changed and seen, the bookkeeping rows the run changed apart. Seen is null when the run was not counted.
 */
export function runRowTotals(
  rowsByTable: Record<string, number>,
  seenByTable: Record<string, number> | null | undefined,
): { changed: number; seen: number | null; bookkeeping: number } {
  const changed = splitRows(rowsByTable);
  return {
    changed: changed.data,
    seen: seenByTable ? splitRows(seenByTable).data : null,
    bookkeeping: changed.bookkeeping,
  };
}

/** Data rows and bookkeeping rows of a run, apart. */
export function splitRows(rows: Record<string, number>): { data: number; bookkeeping: number } {
  let data = 0;
  let bookkeeping = 0;
  for (const [table, n] of Object.entries(rows)) {
    if (BOOKKEEPING.has(table)) bookkeeping += n;
    else data += n;
  }
  return { data, bookkeeping };
}
