// The simulator's defaults, apart from its server code: `scrape-etl simulate` shows them in its options when the
// command line registers its commands, which must stay cheap (cli/main.ts).
export const DEFAULT_RUN_DURATION_MS = 3000;
export const DEFAULT_SEED = 1;
export const DEV_TOKEN = 'sim-token';
