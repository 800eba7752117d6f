// The response kinds `scrape-etl load` reads, apart from their flatteners: the command lists them at registration,
// which must not load the flatteners and, through them, drizzle (every command registers every other).
export type LoadKind = 'marketplace' | 'job-board' | 'create-run' | 'scraping-run' | 'results' | 'listed-scraper';
export const LOAD_KINDS: readonly LoadKind[] = [
  'marketplace',
  'job-board',
  'create-run',
  'scraping-run',
  'results',
  'listed-scraper',
];
