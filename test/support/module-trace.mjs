// Preloaded with `node --import <this file>` (test/integration/cli/cli-project.test.ts): records every module the process loads,
// one URL a line, in the file named by SCRAPE_ETL_MODULE_TRACE, so a test can assert what a command never loads.
import { register } from 'node:module';

register(new URL('./module-trace-hooks.mjs', import.meta.url), { data: { file: process.env.SCRAPE_ETL_MODULE_TRACE } });
