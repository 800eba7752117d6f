// `scrape-etl init [dir]`: a new project: scrape-etl.yaml (cli/project.ts) and one example pipeline, a marketplace
// pipeline whose next steps run against the local simulator. Never overwrites: an existing file stops it (exit 2)
// before anything is written.
import { EXIT } from '../../lib/exit-codes.js';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from '../../vendor/commander.js';
import { PROJECT_FILE } from '../../lib/project-root.js';

export const INIT_PIPELINE = 'marketplace-products';

const PROJECT_TEXT = `# scrape-etl project file: every command run in this folder or below reads it (README, "The project file").
# Precedence: command flag > environment variable > this file > built-in default.
# Relative paths are this folder's.

# Where the pipeline files are (globs); a command names a pipeline by file or by its name:.
pipelines:
  - pipelines/*.yaml

# The database of pipelines that name none (and of status, history, export without a pipeline).
destination: sqlite:data/scrape-etl.sqlite

# Local state: the embedded Temporal server's files, remembered runs.
data_dir: data

# Temporal: leave address out to use the embedded dev server (started on demand under data_dir).
temporal:
  # address: 127.0.0.1:7233
  namespace: default
  task_queue: scrape-etl

# Worker defaults (the SCRAPE_ETL_* variables of the same names).
worker:
  shutdown_grace: 30s
  heartbeat_timeout: 30s
`;

const PIPELINE_TEXT = `# Marketplace products: one synchronous call per product-API URL (item id and shop id in the query).
# The service's address and token come from the environment (SCRAPER_BASE_URL, SCRAPER_API_TOKEN), never this file.
name: ${INIT_PIPELINE}
kind: marketplace
request:
  urls:
    - https://shopee.tw/api/v2/item/get?itemid=4420309814&shopid=10115139
    - https://shopee.tw/api/v2/item/get?itemid=1234567890&shopid=10115139
price_divisor: 100000
exports:
  - dir: data/exports
    neutralize_formulas: true
`;

/** A word as a POSIX shell reads it back unchanged (printed commands are run verbatim). */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function register(program: Command): void {
  program
    .command('init')
    .description(
      `create a project: ${PROJECT_FILE} and an example pipeline (pipelines/${INIT_PIPELINE}.yaml); never overwrites`,
    )
    .argument('[dir]', 'the project folder (created if missing)', '.')
    .action(async (dir: string) => {
      const root = path.resolve(dir);
      const files = [
        { file: path.join(root, PROJECT_FILE), text: PROJECT_TEXT },
        { file: path.join(root, 'pipelines', `${INIT_PIPELINE}.yaml`), text: PIPELINE_TEXT },
      ];
      const existing = files.filter((f) => fs.existsSync(f.file));
      if (existing.length > 0) {
        throw Object.assign(
          new Error(
            `${existing.map((f) => f.file).join(' and ')} already exist${existing.length === 1 ? 's' : ''}; nothing was written (init never overwrites: choose another folder, or remove ${existing.length === 1 ? 'it' : 'them'} first)`,
          ),
          { exitCode: EXIT.usage },
        );
      }
      for (const f of files) {
        fs.mkdirSync(path.dirname(f.file), { recursive: true });
        // 'wx': a file that appeared since the check above is still not overwritten.
        fs.writeFileSync(f.file, f.text, { flag: 'wx' });
      }
      const rel = path.relative(process.cwd(), root);
      // The tool as the user typed it (npx, a PATH install, node and a path): each line below is run verbatim.
      const { toolCommand } = await import('../next-steps.js');
      const tool = toolCommand(root);
      const lines = [
        `created ${files.map((f) => path.relative(process.cwd(), f.file) || f.file).join(' and ')}`,
        'next:',
      ];
      if (rel !== '') lines.push(`  cd ${shellWord(rel)}`);
      // The project's own pipeline, against a local simulator of the service (no token): not the bundled examples,
      // which would load pipelines of their own into the project's database.
      lines.push(`  ${tool} validate`, `  ${tool} demo ${INIT_PIPELINE}`, `  ${tool} status ${INIT_PIPELINE}`);
      lines.push(
        `(demo ${INIT_PIPELINE} runs the project's pipeline against a local simulator of the service: no token, nothing paid)`,
      );
      lines.push(`then run it on the service, with SCRAPER_API_TOKEN set: ${tool} run ${INIT_PIPELINE}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
