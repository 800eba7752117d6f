// The project file read without zod (cli/project-quick.ts) never accepts what the schema (cli/project-schema.ts)
// rejects, and reads what it accepts to the same project; what it is not sure of goes to the schema. Each text
// below is judged by both.
import { describe, expect, it } from 'vitest';
import { readProjectQuickly } from '../../../cli/project-quick.js';
import { parseProjectText } from '../../../cli/project-schema.js';

const FILE = '/projects/acme/scrape-etl.yaml';
const ENV = { PG_URL: 'postgres://etl@db/warehouse', EMPTY: '' };

const FULL = `pipelines:
  - jobs/**/*.yaml
  - more/*.yml
destination: sqlite:warehouse/main.sqlite
data_dir: state
temporal:
  address: temporal.internal:7233
  namespace: etl
  task_queue: scrape
worker:
  shutdown_grace: 30s
  log_level: WARN
  metrics_port: 9464
  metrics_host: 0.0.0.0
  heartbeat_timeout: 2m
  activity_timeout: 1h
  url_chunk_size: 50
  url_load_group: 4
  pages_per_activity: 10
  activities_per_run: 8
  load_batch_size: 500
  export_threads: 2
  pg_pool_size: 5
`;

// [what it is, the text, whether the quick reader must accept it itself]
const CASES: Array<[string, string, boolean]> = [
  ['empty file', '', true],
  ['comment only', '# nothing yet\n', true],
  ['every setting', FULL, true],
  ['one glob as a string', 'pipelines: "pipelines/*.yaml"\n', true],
  ['postgres from a variable', 'destination: ${PG_URL}\n', true],
  ['a default for an unset variable', 'data_dir: ${NOPE:-fallback}\n', true],
  ['[::1] address', 'temporal:\n  address: "[::1]:7233"\n', true],
  ['port 0', 'worker:\n  metrics_port: 0\n', true],
  ['web UI URL (left to the schema)', 'temporal:\n  web_ui_url: https://temporal.example.com\n', false],
  ['web UI URL that is none', 'temporal:\n  web_ui_url: not a url\n', false],
  ['unset variable', 'destination: ${NOT_SET_ANYWHERE}\n', false],
  ['empty variable', 'data_dir: ${EMPTY}\n', false],
  ['unknown key', 'destinaton: sqlite:x.sqlite\n', false],
  ['unknown nested key', 'worker:\n  threads: 2\n', false],
  ['key without a value', 'destination:\n', false],
  ['section without a value', 'temporal:\n', false],
  ['section as a list', 'worker:\n  - a\n', false],
  ['bad database URL', 'destination: mysql://x/y\n', false],
  ['address without a port', 'temporal:\n  address: localhost\n', false],
  ['port too high', 'worker:\n  metrics_port: 70000\n', false],
  ['port as text', 'worker:\n  metrics_port: "9464"\n', false],
  ['zero where positive', 'worker:\n  export_threads: 0\n', false],
  ['a fraction', 'worker:\n  load_batch_size: 2.5\n', false],
  ['a negative', 'worker:\n  pg_pool_size: -1\n', false],
  ['lower-case log level', 'worker:\n  log_level: warn\n', false],
  ['grace in days', 'worker:\n  shutdown_grace: 1d\n', false],
  ['timeout without a unit', 'worker:\n  heartbeat_timeout: "30"\n', false],
  ['empty glob list', 'pipelines: []\n', false],
  ['empty glob', 'pipelines:\n  - ""\n', false],
  ['empty namespace', 'temporal:\n  namespace: ""\n', false],
  ['not a mapping', '- a\n- b\n', false],
  ['a scalar', 'hello\n', false],
  ['YAML syntax error', 'destination: [unclosed\n', false],
  ['duplicate key', 'data_dir: a\ndata_dir: b\n', false],
];

describe('the project file without zod', () => {
  it.each(CASES)('%s: the same verdict and project as the schema', (_what, text, quickItself) => {
    const quick = readProjectQuickly(text, FILE, ENV);
    let schema: ReturnType<typeof parseProjectText> | Error;
    try {
      schema = parseProjectText(text, FILE, ENV);
    } catch (err) {
      schema = err as Error;
    }
    expect(quick !== undefined).toBe(quickItself);
    // Never accepts what the schema rejects; reads what both accept alike.
    if (quick !== undefined) expect(quick).toEqual(schema);
  });

  it('a valid file reads to the settings it sets, paths anchored at its folder', () => {
    const p = readProjectQuickly(FULL, FILE, ENV)!;
    expect(p.root).toBe('/projects/acme');
    expect(p.pipelines).toEqual(['jobs/**/*.yaml', 'more/*.yml']);
    expect(p.settings).toMatchObject({
      DATABASE_URL: 'sqlite:/projects/acme/warehouse/main.sqlite',
      SCRAPE_ETL_DATA_DIR: '/projects/acme/state',
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      SCRAPE_ETL_METRICS_PORT: '9464',
      SCRAPE_ETL_PG_POOL_SIZE: '5',
    });
  });
});
