// CPU of the URL-list activity's SQLite load path against the bare INSERT of the same rows, in one run. N generated
// marketplace responses of P pipelines go through db/store/load.ts loadBatches in groups of SCRAPE_ETL_URL_LOAD_GROUP (25)
// responses, the groups of the pipelines interleaved (as bench/many-runs.ts's 50 pipelines load one file): what
// activities/url-lists.ts ChunkWriter calls. Measured in CPU time of this process (GC threads included), not wall
// time: the machine is shared. Two clocks for ours: flattening (prepareLoad, the lead's db/model/flatten) and writing
// (loadBatches of the prepared responses: raw landing, registry, reads of stored rows, upserts, COMMIT). The
// baseline is the machine floor's "bare INSERT" (bench/many-runs.ts sqliteBound): every row ours loaded
// (raw_responses and the data tables) read back and written again with bareInsert into a fresh file of the same
// schema, one transaction per group of the same size. The loaded tables of every implementation are compared
// (row counts and row hashes per table), so a faster load that writes something else fails the bench.
//   npm run build && node --expose-gc --import tsx bench/load-groups.ts
//   BENCH_LOAD_GROUPS_URLS (1000), BENCH_LOAD_GROUPS_PIPELINES (10), BENCH_LOAD_GROUPS_ROUNDS (3)
//   BENCH_LOAD_GROUPS_CONNECTIONS=2: two connections write the groups in turn (as many-runs' two worker processes:
//   each finds its page cache stale after the other's commit); BENCH_LOAD_GROUPS_PRAGMAS='k=v,…' set on each.
//   BENCH_LOAD_GROUPS_COMPARE=<checkout>: also times that checkout's built dist/db/store/load.js, round by round
//   interleaved with this one's: a before/after pair that sees the same machine load.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import {
  bareInsert,
  emptyCopy,
  loadedUnits,
  productUrl,
  products,
  type BareUnit,
  type Product,
} from './_marketplace-files.js';

const URLS = Number(process.env['BENCH_LOAD_GROUPS_URLS'] ?? 1000);
const PIPELINES = Number(process.env['BENCH_LOAD_GROUPS_PIPELINES'] ?? 10);
const ROUNDS = Number(process.env['BENCH_LOAD_GROUPS_ROUNDS'] ?? 3);
const GROUP = Number(process.env['SCRAPE_ETL_URL_LOAD_GROUP'] ?? 25);
const COMPARE = process.env['BENCH_LOAD_GROUPS_COMPARE'];
/** Connections writing the file in turn, a group each (2: as many-runs' two worker processes, each of which finds its page cache stale after the other's commit). */
const CONNECTIONS = Number(process.env['BENCH_LOAD_GROUPS_CONNECTIONS'] ?? 1);
const PRAGMAS = (process.env['BENCH_LOAD_GROUPS_PRAGMAS'] ?? '').split(',').filter((p) => p.trim() !== '');
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The two functions of a checkout the activity's load path is made of. */
interface Impl {
  label: string;
  openDatabase: (url: string) => Promise<{ close(): Promise<void>; sqlite?: { pragma(sql: string): unknown } }>;
  prepareLoad: (opts: unknown) => unknown;
  loadBatches: (db: unknown, list: readonly unknown[]) => Promise<{ failed?: { error: unknown }; results: unknown[] }>;
}

/** A checkout's compiled db/ (dist/, what the workers run: `npm run build` first), not its sources through tsx. */
async function implOf(root: string, label: string): Promise<Impl> {
  // This layout (db/store/, destinations/open.ts) first, then the layout of checkouts from before the db/ split.
  const layouts = [
    { load: path.join('db', 'store', 'load.js'), open: path.join('destinations', 'open.js') },
    { load: path.join('db', 'load.js'), open: path.join('db', 'connect.js') },
  ];
  const dist = path.join(root, 'dist');
  const layout = layouts.find((l) => fs.existsSync(path.join(dist, l.load)) && fs.existsSync(path.join(dist, l.open)));
  if (!layout) throw new Error(`${dist}/db/store/load.js is missing: run npm run build in ${root}`);
  const connect = (await import(pathToFileURL(path.join(dist, layout.open)).href)) as Pick<Impl, 'openDatabase'>;
  const load = (await import(pathToFileURL(path.join(dist, layout.load)).href)) as Pick<
    Impl,
    'prepareLoad' | 'loadBatches'
  >;
  return { label, openDatabase: connect.openDatabase, prepareLoad: load.prepareLoad, loadBatches: load.loadBatches };
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

/** The groups of every pipeline, interleaved: pipeline 0's first group, pipeline 1's first group, … */
function groupsOf(list: readonly Product[]) {
  const per = Math.ceil(list.length / PIPELINES);
  const byPipeline = Array.from({ length: PIPELINES }, (_, p) =>
    list.slice(p * per, (p + 1) * per).map((prod, i) => ({
      pipeline: `bench-${p}`,
      kind: 'marketplace' as const,
      endpoint: 'POST /api/marketplace/sync',
      requestKey: productUrl(p * per + i).url,
      workflowId: `bench-${p}-run`,
      raw: prod.raw,
      data: prod.data,
    })),
  );
  const groups: Array<(typeof byPipeline)[number]> = [];
  for (let g = 0; ; g++) {
    const round = byPipeline.map((l) => l.slice(g * GROUP, (g + 1) * GROUP)).filter((l) => l.length > 0);
    if (round.length === 0) break;
    groups.push(...round);
  }
  return groups;
}

interface Timing {
  prepareMs: number;
  writeMs: number;
  /** The same responses written again into the file that holds them (a run whose data did not change). */
  againMs: number;
}

async function ours(impl: Impl, list: readonly Product[], file: string): Promise<Timing> {
  const dbs = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const db = await impl.openDatabase(`sqlite:${file}`);
    for (const p of PRAGMAS) db.sqlite?.pragma(p);
    dbs.push(db);
  }
  const groups = groupsOf(list);
  global.gc?.();
  let c = process.cpuUsage();
  const prepared = groups.map((g) => g.map((o) => impl.prepareLoad(o)));
  const prepareMs = cpuMs(c);
  c = process.cpuUsage();
  for (const [i, g] of prepared.entries()) {
    const out = await impl.loadBatches(dbs[i % dbs.length], g);
    if (out.failed) throw out.failed.error;
  }
  const writeMs = cpuMs(c);
  // Again, unchanged: no row is written, only what the load reads and what marks the rows seen (last_seen_at).
  const again = groups.map((g) => g.map((o) => impl.prepareLoad(o)));
  global.gc?.();
  c = process.cpuUsage();
  for (const [i, g] of again.entries()) {
    const out = await impl.loadBatches(dbs[i % dbs.length], g);
    if (out.failed) throw out.failed.error;
  }
  const againMs = cpuMs(c);
  for (const db of dbs) await db.close();
  return { prepareMs, writeMs, againMs };
}

/** bareInsert of every row `file` holds, grouped as they were loaded; CPU ms. */
function bare(file: string, dir: string): number {
  const { schema, perLoad: perUrl } = loadedUnits(file);
  const grouped: BareUnit[] = [];
  for (let i = 0; i < perUrl.length; i += GROUP) grouped.push(perUrl.slice(i, i + GROUP).flat());
  const target = path.join(dir, 'bare.sqlite');
  emptyCopy(target, schema);
  global.gc?.();
  const c = process.cpuUsage();
  bareInsert(target, grouped);
  return cpuMs(c);
}

/** Per table the load writes: row count and the sorted row hashes (raw_responses: its digests), for comparing two loads. */
function contentsOf(file: string): string {
  const db = new BetterSqlite3(file, { readonly: true });
  const tables = db
    .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`)
    .pluck()
    .all() as string[];
  const out: string[] = [];
  for (const t of tables) {
    const cols = db.prepare(`select name from pragma_table_info(?)`).pluck().all(t) as string[];
    const col = cols.includes('row_hash')
      ? 'row_hash'
      : t === 'raw_responses'
        ? "body_sha256 || ':' || coalesce(body_ref, '') || ':' || request_key"
        : undefined;
    const n = db.prepare(`select count(*) from "${t}"`).pluck().get() as number;
    const hashes = col ? (db.prepare(`select ${col} from "${t}" order by 1`).pluck().all() as string[]).join(',') : '';
    // The migrations' own records and the schema's comments describe the schema, not what the load wrote: two
    // checkouts a migration apart (a column added, with its comment) load the same rows.
    if (t !== '__drizzle_migrations' && t !== 'scrape_etl_comments')
      out.push(`${t} ${n} ${hashes.length} ${hashes.slice(0, 64)}…${hashes.slice(-64)}`);
  }
  db.close();
  return out.join('\n');
}

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const impls = [await implOf(here, 'ours (this checkout)')];
  if (COMPARE) impls.unshift(await implOf(path.resolve(COMPARE), `ours (${COMPARE})`));
  console.log(
    `# load groups: ${URLS} marketplace responses of ${PIPELINES} pipelines, groups of ${GROUP} (loadBatches), one SQLite file written by ${CONNECTIONS} connection(s) in turn` +
      `${PRAGMAS.length > 0 ? ` (${PRAGMAS.join(', ')})` : ''}; CPU ms a URL, median of ${ROUNDS} rounds; load average ${loadAverage()}`,
  );
  const list = [...products(URLS)];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-load-groups-'));
  try {
    // Warm-up, untimed: every implementation's loaders compiled before any is timed.
    for (const impl of impls)
      await ours(impl, list.slice(0, Math.min(200, list.length)), path.join(dir, `warm-${impls.indexOf(impl)}.sqlite`));
    const figures = impls.map(() => ({ prepare: [] as number[], write: [] as number[], again: [] as number[] }));
    const bareMs: number[] = [];
    const contents: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // The order alternates round by round: the one timed second pays for the first one's garbage.
      const order = [...impls.entries()];
      if (r % 2 === 1) order.reverse();
      for (const [k, impl] of order) {
        const file = path.join(dir, `ours-${r}-${k}.sqlite`);
        const t = await ours(impl, list, file);
        figures[k]!.prepare.push(t.prepareMs / URLS);
        figures[k]!.write.push(t.writeMs / URLS);
        figures[k]!.again.push(t.againMs / URLS);
        if (r === 0) contents[k] = contentsOf(file);
        if (k === impls.length - 1) bareMs.push(bare(file, fs.mkdtempSync(path.join(dir, 'bare-'))) / URLS);
        fs.rmSync(file, { force: true });
        fs.rmSync(`${file}-wal`, { force: true });
        fs.rmSync(`${file}-shm`, { force: true });
      }
    }
    const b = median(bareMs);
    console.log(`${'bare INSERT of the same rows (raw_responses included):'.padEnd(58)} ${b.toFixed(3)} ms a URL`);
    for (const [k, impl] of impls.entries()) {
      const p = median(figures[k]!.prepare);
      const w = median(figures[k]!.write);
      console.log(
        `${`${impl.label}: write`.padEnd(58)} ${w.toFixed(3)} ms a URL = ${(w / b).toFixed(2)}x bare; flatten ${p.toFixed(3)} ms; total ${(p + w).toFixed(3)} ms = ${((p + w) / b).toFixed(2)}x bare`,
      );
      const a = median(figures[k]!.again);
      console.log(
        `${`${impl.label}: write again, unchanged`.padEnd(58)} ${a.toFixed(3)} ms a URL = ${(a / b).toFixed(2)}x bare`,
      );
      console.log(
        `${''.padEnd(58)} rounds: write ${figures[k]!.write.map((x) => x.toFixed(3)).join(' ')}; again ${figures[k]!.again.map((x) => x.toFixed(3)).join(' ')}`,
      );
    }
    console.log(`bare rounds: ${bareMs.map((x) => x.toFixed(3)).join(' ')}; load average at the end ${loadAverage()}`);
    if (contents.length > 1 && contents.some((c) => c !== contents[0])) {
      console.error(
        `tables differ between implementations:\n${contents.map((c, i) => `--- ${impls[i]!.label}\n${c}`).join('\n')}`,
      );
      process.exitCode = 1;
    } else if (contents.length > 1) {
      console.log('loaded tables identical across implementations (row counts and row hashes per table)');
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
