// DuckDB destination size benchmark: the same generated marketplace products loaded through db/store/load.ts into a
// SQLite file and into a DuckDB file, one call per product (a pipeline's loads: one session and transaction each)
// and in groups of GROUP (`scrape-etl load`), timed; then the size of each file once closed (DuckDB's .wal
// included), against a lower bound measured in the same run: a new DuckDB file holding the same rows copied by
// plain `CREATE TABLE … AS SELECT` from the loaded file (no keys, no indexes, one transaction, checkpointed), and
// the same with the schema's keys and indexes (the project's DDL, then `INSERT … SELECT`). Where the space goes:
// per table, the blocks its columns use (pragma_storage_info) and its indexes. Two more baselines of the same run:
// dlt (bench/_dlt.ts, installed from PyPI into ~/.cache/scrape-etl/py-dlt on first use) loading the same product
// bodies into its own DuckDB file (append, nested lists as child tables, no raw bodies, no keys; and merge on the
// product's shop and item ids, what a loader that updates products in place writes: issue #39's goal is a file no
// larger than that one), and the rows of our
// file copied into DuckDB's default format (v1.0 storage, 256 KB blocks) with every index of the model: the file
// as this destination made it before it chose its format and indexes (db/duckdb/database.ts, ddl.ts).
//   npx tsx bench/duckdb-size.ts        (BENCH_SIZE_PRODUCTS, default 2000; BENCH_SIZE_SINGLE=0 skips the one-call-per-product run)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openDatabase } from '../destinations/open.js';
import { BLOCK_SIZE, STORAGE_VERSION } from '../destinations/duckdb/database.js';
import { baselineDdl, tableDdl } from '../destinations/duckdb/ddl.js';
import { TABLES, type AnyTableDef } from '../db/model/schema/definition.js';
import { products, timeProductLoads, type Product } from './_marketplace-files.js';
import { dltLoad } from './_dlt.js';

const PRODUCTS = Number(process.env['BENCH_SIZE_PRODUCTS'] ?? 2000);
/** Products per call in the grouped run: cli/commands/load.ts GROUP_FILES. */
const GROUP = 64;

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function sizeOf(file: string): number {
  let total = 0;
  for (const f of [file, `${file}.wal`, `${file}-wal`, `${file}-shm`])
    if (fs.existsSync(f)) total += fs.statSync(f).size;
  return total;
}

async function load(
  dir: string,
  dialect: 'sqlite' | 'duckdb',
  list: readonly Product[],
  grouped: boolean,
): Promise<{ file: string; seconds: number; rows: number }> {
  const file = path.join(dir, `${grouped ? 'grouped' : 'single'}.${dialect}`);
  const db = await openDatabase(`${dialect}:${file}`);
  try {
    const t = await timeProductLoads(db, list, grouped ? GROUP : undefined);
    return { file, ...t };
  } finally {
    await db.close();
  }
}

/**
 * Tables of the loaded file copied into a new file: bare (CTAS) or with the project's keys and indexes, in the
 * destination's format; `legacy`: DuckDB's default format and every index of the model (the file before #29).
 */
async function lowerBound(source: string, target: string, withSchema: boolean, legacy = false): Promise<number> {
  const instance = await DuckDBInstance.create(
    target,
    legacy ? {} : { storage_compatibility_version: STORAGE_VERSION, default_block_size: BLOCK_SIZE },
  );
  const con = await instance.connect();
  try {
    await con.run(`attach '${source}' as src (read_only)`);
    const tables = (
      await con.runAndReadAll(`select table_name from duckdb_tables() where database_name = 'src' order by table_name`)
    )
      .getRows()
      .map((r) => String(r[0]));
    await con.run('begin');
    const ddl = legacy
      ? Object.entries(TABLES).flatMap(([name, def]) => legacyTableDdl(name, def as AnyTableDef))
      : baselineDdl();
    if (withSchema) for (const sql of ddl) await con.run(sql);
    for (const t of tables) {
      const exists = (
        await con.runAndReadAll(
          `select count(*) from duckdb_tables() where database_name = current_database() and table_name = $1`,
          [t],
        )
      ).getRows()[0]![0];
      if (withSchema && Number(exists) > 0) {
        // Columns the loader added at run time (unknown fields) are added here too, with the loaded file's types.
        const extra = (
          await con.runAndReadAll(
            `select column_name, data_type from duckdb_columns() where database_name = 'src' and table_name = $1 and column_name not in (select column_name from duckdb_columns() where database_name = current_database() and table_name = $1) order by column_index`,
            [t],
          )
        ).getRows();
        for (const [c, type] of extra)
          await con.run(`alter table main."${t}" add column "${String(c)}" ${String(type)}`);
        await con.run(`insert into main."${t}" by name select * from src."${t}"`);
      } else await con.run(`create table main."${t}" as select * from src."${t}"`);
    }
    await con.run('commit');
    await con.run('detach src');
    await con.run('checkpoint');
  } finally {
    con.closeSync();
    instance.closeSync();
  }
  return sizeOf(target);
}

/** tableDdl with every index of the model, as the baseline had them before multi-column non-unique ones were left out. */
function legacyTableDdl(name: string, def: AnyTableDef): string[] {
  const out = tableDdl(name, { ...def, indexes: [] });
  for (const i of def.indexes ?? [])
    out.push(
      `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS "${i.name}" ON "${name}" (${i.columns.map((c) => `"${c}"`).join(', ')})`,
    );
  return out;
}

/** Where the space of a DuckDB file goes: per table, rows, column blocks and index count. */
async function breakdown(file: string): Promise<string[]> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const con = await instance.connect();
  try {
    const blockSize = Number(
      (await con.runAndReadAll(`select block_size from pragma_database_size()`)).getRows()[0]![0],
    );
    const total = (
      await con.runAndReadAll(`select total_blocks, used_blocks, free_blocks, wal_size from pragma_database_size()`)
    ).getRowObjectsJS()[0]!;
    const tables = (
      await con.runAndReadAll(`select table_name, estimated_size, index_count from duckdb_tables() order by table_name`)
    ).getRows();
    const format = (
      await con.runAndReadAll(
        `select tags['storage_version'] from duckdb_databases() where database_name = current_database()`,
      )
    ).getRows()[0]![0];
    const lines: string[] = [
      `    format: storage ${String(format)}; blocks: total ${total['total_blocks']}, used ${total['used_blocks']}, free ${total['free_blocks']} (block ${blockSize / 1024} KB), wal ${total['wal_size']}`,
    ];
    const per: Array<[string, number, string]> = [];
    for (const [name, rows, indexes] of tables) {
      const blocks = Number(
        (
          await con.runAndReadAll(
            `select count(distinct block_id) from pragma_storage_info('${String(name)}') where block_id >= 0`,
          )
        ).getRows()[0]![0],
      );
      per.push([String(name), blocks, `${fmt(Number(rows))} rows, ${String(indexes)} indexes`]);
    }
    per.sort((a, b) => b[1] - a[1]);
    for (const [name, blocks, what] of per.slice(0, 8))
      lines.push(`    ${name}: ${blocks} column blocks (${mb(blocks * blockSize)}), ${what}`);
    return lines;
  } finally {
    con.closeSync();
    instance.closeSync();
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-duckdb-size-'));
  try {
    console.log(
      `# DuckDB destination size: ${fmt(PRODUCTS)} generated marketplace products, DuckDB file against SQLite file`,
    );
    const list = [...products(PRODUCTS)];
    const warm = path.join(dir, 'warm');
    fs.mkdirSync(warm);
    await load(warm, 'duckdb', list.slice(0, 50), true);
    await load(warm, 'sqlite', list.slice(0, 50), true);
    const dlt = dltLoad(
      dir,
      list.map((p) => p.raw),
      'append',
    );
    console.log(`dlt (${dlt.versions}), same product bodies, append: ${mb(dlt.bytes)} in ${dlt.seconds.toFixed(1)} s`);
    const merged = dltLoad(
      dir,
      list.map((p) => p.raw),
      'merge',
    );
    console.log(
      `dlt, same product bodies, merge on (shop, item): ${mb(merged.bytes)} in ${merged.seconds.toFixed(1)} s`,
    );
    for (const grouped of process.env['BENCH_SIZE_SINGLE'] === '0' ? [true] : [true, false]) {
      const how = grouped ? `${GROUP} products per call` : 'one call per product';
      const duck = await load(dir, 'duckdb', list, grouped);
      const lite = await load(dir, 'sqlite', list, grouped);
      const [d, s] = [sizeOf(duck.file), sizeOf(lite.file)];
      console.log(`${how}:`);
      console.log(
        `  load: DuckDB ${duck.seconds.toFixed(1)} s, SQLite ${lite.seconds.toFixed(1)} s (${fmt(duck.rows)} rows) -> speed DuckDB/SQLite ${(lite.seconds / duck.seconds).toFixed(2)} (goal >= 0.5)`,
      );
      console.log(
        `  file: DuckDB ${mb(d)}, SQLite ${mb(s)}, dlt ${mb(dlt.bytes)}, dlt merge ${mb(merged.bytes)} -> DuckDB/SQLite ${(d / s).toFixed(2)} (goal <= 3), DuckDB/dlt ${(d / dlt.bytes).toFixed(2)} (goal <= 2), DuckDB/dlt merge ${(d / merged.bytes).toFixed(2)} (goal <= 1.0); load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      );
      const legacy = await lowerBound(duck.file, path.join(dir, `legacy-${grouped}.duckdb`), true, true);
      console.log(
        `  the same rows in DuckDB's default format (v1.0 storage, 256 KB blocks) with every index of the model (the file before #29): ${mb(legacy)} -> /SQLite ${(legacy / s).toFixed(2)}, /dlt ${(legacy / dlt.bytes).toFixed(2)}`,
      );
      const bare = await lowerBound(duck.file, path.join(dir, `bare-${grouped}.duckdb`), false);
      const keyed = await lowerBound(duck.file, path.join(dir, `keyed-${grouped}.duckdb`), true);
      console.log(
        `  lower bounds (same rows, one INSERT … SELECT): no keys ${mb(bare)}, with the schema's keys and indexes ${mb(keyed)} -> ours/no-keys ${(d / bare).toFixed(2)}, ours/keyed ${(d / keyed).toFixed(2)}`,
      );
      console.log(`  where the space goes in ours:`);
      for (const l of await breakdown(duck.file)) console.log(l);
      console.log(`  and in the keyed lower bound:`);
      for (const l of (await breakdown(path.join(dir, `keyed-${grouped}.duckdb`))).slice(0, 4)) console.log(l);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
