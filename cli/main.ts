// Entry point of the `scrape-etl` command as an ES module: run from the sources (tsx), and by bin/scrape-etl.js when
// dist/ has no launcher bundle (cli/launch.ts holds what it does).
import { launch } from './launch.js';

await launch(process.argv);
