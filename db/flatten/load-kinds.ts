// The kinds of response `scrape-etl load` takes: a module of its own, with no flattening code, because the command
// line names them when it registers its commands (cli/commands/load.ts) and must not load drizzle for that.
export type LoadKind = 'marketplace' | 'job-board' | 'create-run' | 'scraping-run' | 'results' | 'listed-scraper';
export const LOAD_KINDS: readonly LoadKind[] = ['marketplace', 'job-board', 'create-run', 'scraping-run', 'results', 'listed-scraper'];
