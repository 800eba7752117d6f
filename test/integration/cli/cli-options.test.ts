// One spelling of each option across commands (the compiled command, `npm run build` first): every command that
// takes a destination database calls it --database in its help, none shows --db, and the old --db still works as
// a hidden alias (scripts written against export, load, schema and rebuild keep running). Checked on a real
// SQLite file loaded from a job-board answer fetched from the simulator over HTTP.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScraperClient } from '../../../client/index.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { jsonLines, runCli } from '../../support/cli.js';
import { JOB_SCHEMA } from '../../support/job-schema.js';

const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;
let sim: RunningSimulator;
let dir: string;
let answer: string;

/** Every command and subcommand of the program. */
const COMMANDS = [
  ['demo'],
  ['status'],
  ['history'],
  ['prune'],
  ['server', 'status'],
  ['server', 'stop'],
  ['schedule', 'apply'],
  ['schedule', 'list'],
  ['schedule', 'describe'],
  ['schedule', 'pause'],
  ['schedule', 'unpause'],
  ['schedule', 'trigger'],
  ['schedule', 'backfill'],
  ['schedule', 'delete'],
  ['run'],
  ['export'],
  ['load'],
  ['validate'],
  ['simulate'],
  ['worker'],
  ['schema', 'show'],
  ['rebuild'],
  ['init'],
  ['console'],
  ['report'],
  ['up'],
  ['down'],
  ['check'],
  ['pipelines'],
  ['cancel'],
  ['doctor'],
];
/** The commands that read or write a destination database. */
const WITH_DATABASE = ['status', 'history', 'export', 'load', 'schema show', 'rebuild', 'console', 'report', 'check'];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, token: TOKEN, seed: 4 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-options-'));
  const client = new ScraperClient({ baseUrl: sim.baseUrl, token: TOKEN });
  const api = await client.jobBoardScrape({
    urls: ['https://weworkremotely.com/remote-jobs/search?term=opt'],
    min: 3,
    max: 5,
    timeout: 60,
    schema: JOB_SCHEMA,
  } as never);
  answer = path.join(dir, 'jobs.json');
  fs.writeFileSync(answer, api.raw);
}, 60_000);

afterAll(async () => {
  await sim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The long options a command's --help lists. */
async function longOptions(command: string[]): Promise<string[]> {
  const r = await runCli([...command, '--help']);
  expect(r.code, `${command.join(' ')} --help\n${r.stderr}`).toBe(0);
  return [...r.stdout.matchAll(/^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1]!);
}

describe('option spelling', () => {
  it('the top-level help lists exactly the commands checked here', async () => {
    const r = await runCli(['--help']);
    const listed = [...r.stdout.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(listed.sort()).toEqual([...new Set(COMMANDS.map((c) => c[0]!))].sort());
  });

  it('every command that takes a database calls it --database; no command shows --db', async () => {
    const byCommand = new Map<string, string[]>();
    for (const c of COMMANDS) byCommand.set(c.join(' '), await longOptions(c));
    for (const [command, options] of byCommand) {
      expect({ command, db: options.includes('--db') }).toEqual({ command, db: false });
      expect({ command, database: options.includes('--database') }).toEqual({
        command,
        database: WITH_DATABASE.includes(command),
      });
    }
  }, 120_000);

  it('--database and the hidden --db alias name the same database in every such command', async () => {
    const file = path.join(dir, 'dest.sqlite');
    const url = `sqlite:${file}`;
    const loaded = await runCli(['load', 'job-board', answer, '--database', url, '--pipeline', 'jobs']);
    expect(loaded.code, loaded.stderr).toBe(0);
    const again = await runCli(['load', 'job-board', answer, '--db', url, '--pipeline', 'jobs']);
    expect(again.code, again.stderr).toBe(0);

    for (const flag of ['--database', '--db']) {
      const history = await runCli(['history', 'jobs', flag, url, '--json']);
      expect(history.code, history.stderr).toBe(0);
      expect(jsonLines(history.stdout).map((r) => r['tableStatus'])).toEqual(['succeeded', 'succeeded']);
      const status = await runCli(['status', flag, url, '--no-temporal', '--json']);
      expect(status.code, status.stderr).toBe(0);
      expect(jsonLines(status.stdout)).toHaveLength(2);
      const out = path.join(dir, `out${flag}`);
      const exported = await runCli(['export', flag, url, '--out', out, '--tables', 'job_records', '--json']);
      expect(exported.code, exported.stderr).toBe(0);
      const [f] = jsonLines(exported.stdout);
      expect(f?.['rows']).toBeGreaterThanOrEqual(3);
      expect(fs.existsSync(String(f?.['file']))).toBe(true);
      const report = path.join(dir, `report${flag}.html`);
      const reported = await runCli(['report', 'jobs', flag, url, '--out', report]);
      expect(reported.code, reported.stderr).toBe(0);
      expect(fs.readFileSync(report, 'utf8')).toContain('jobs');
    }
    // The last of the two spellings wins, as for any repeated option.
    const missing = `sqlite:${path.join(dir, 'missing.sqlite')}`;
    const last = await runCli(['history', 'jobs', '--db', missing, '--database', url, '--json']);
    expect(last.code, last.stderr).toBe(0);
    const first = await runCli(['history', 'jobs', '--database', url, '--db', missing]);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(`no database at ${missing}`);
    expect(fs.existsSync(path.join(dir, 'missing.sqlite'))).toBe(false);
  }, 120_000);
});

describe('the heap growth setting of commands that run activities', () => {
  it.each([['run', 'no-such-file.yaml'], ['worker'], ['demo'], ['up']])(
    '`%s` refuses a malformed SCRAPE_ETL_HEAP_GROWTH_PERCENT before it starts anything',
    async (...args) => {
      for (const value of ['lots', '-5', '2.5', '301']) {
        const r = await runCli(args, {
          cwd: dir,
          env: { SCRAPE_ETL_HEAP_GROWTH_PERCENT: value, SCRAPE_ETL_DATA_DIR: path.join(dir, 'no-server') },
        });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain(
          `SCRAPE_ETL_HEAP_GROWTH_PERCENT='${value}' must be a whole number of percent from 0`,
        );
        expect(r.stderr).toContain('nothing was started');
      }
      // Nothing was started: no embedded Temporal server was brought up for the command.
      expect(fs.existsSync(path.join(dir, 'no-server'))).toBe(false);
    },
  );
});
