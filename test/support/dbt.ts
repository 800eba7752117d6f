// dbt-core 1.11 with the postgres and duckdb adapters, for the tests that run an analyst's dbt over what pipelines
// load. scripts/ensure-dbt.sh installs it from PyPI into a virtual environment in the cache (as .ci/run does before
// the tests), so a developer running one test file needs no separate step.
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './cli.js';

let dbtPath: string | undefined;

/** The dbt executable, installed into ~/.cache/scrape-etl/dbt-1.11 on first use (minutes once). */
export function ensureDbt(): string {
  dbtPath ??= execFileSync('bash', [path.join(REPO_ROOT, 'scripts', 'ensure-dbt.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return dbtPath;
}

export interface DbtResult {
  code: number | null;
  output: string;
}

/** Runs `dbt <args>` in a dbt project folder whose profiles.yml sits beside dbt_project.yml. */
export function runDbt(args: string[], o: { cwd: string; timeoutMs?: number }): Promise<DbtResult> {
  const dbt = ensureDbt();
  return new Promise((resolve, reject) => {
    const child = spawn(dbt, [...args, '--profiles-dir', o.cwd, '--no-use-colors'], {
      cwd: o.cwd,
      // No anonymous usage events from a test (dbt sends them by default), and no version check over the network.
      env: { ...process.env, DBT_SEND_ANONYMOUS_USAGE_STATS: 'false', DBT_VERSION_CHECK: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`dbt ${args.join(' ')} timed out:\n${output}`));
    }, o.timeoutMs ?? 300_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
