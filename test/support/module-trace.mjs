// Preloaded with `node --import <this file>` (test/integration/cli/cli-project.test.ts): records every module the process loads,
// one URL a line, in the file named by SCRAPE_ETL_MODULE_TRACE, so a test can assert what a command never loads:
// the ES modules Node's loader loads (module-trace-hooks.mjs: the URL), the product modules that run inside a bundle
// the build made (`bundle:<URL>`: the read-only commands' bundle says each as it runs, scripts/cli-bundle.ts), and
// at exit the CommonJS modules the process required (`require:<URL>`: the packages a bundle requires are no ES
// module loads).
import fs from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.SCRAPE_ETL_MODULE_TRACE;
register(new URL('./module-trace-hooks.mjs', import.meta.url), { data: { file } });
if (file) {
  process.on('scrape-etl:module-ran', (url) => fs.appendFileSync(file, `bundle:${url}\n`));
  const { cache } = createRequire(import.meta.url);
  process.on('exit', () => {
    const required = Object.keys(cache).filter((f) => f.startsWith('/'));
    if (required.length > 0)
      fs.appendFileSync(file, required.map((f) => `require:${pathToFileURL(f).href}\n`).join(''));
  });
}
