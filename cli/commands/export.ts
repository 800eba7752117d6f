// `scrape-etl export`: writes tables of a database to CSV, Parquet, JSON Lines or XLSX files, all rows or
// (--since-last) the rows loaded since the pipeline's previous export. Files appear only when complete; see
// docs/csv-and-compose.md.
import { EXIT } from '../../lib/exit-codes.js';
import { InvalidArgumentError, type Command } from '../../vendor/commander.js';
import { addDatabaseOption } from '../options.js';
import type { ExportOptions } from '../../export/export.js';
import { EXPORT_FORMATS, type ExportFormat } from '../../export/formats/index.js';

interface ExportCliOptions {
  database?: string;
  out?: string;
  to?: string;
  partitionBy?: string[];
  tableFormat?: string;
  runId?: string;
  snapshot?: boolean;
  tables?: string[];
  columns?: Record<string, string[]>;
  sinceLast?: boolean;
  writeEmpty?: boolean;
  pipeline?: string;
  delimiter: string;
  bom?: boolean;
  nullText: string;
  neutralizeFormulas: boolean;
  fileName?: string;
  format: ExportFormat;
  lineEnding: 'crlf' | 'lf';
  json?: boolean;
}

function list(value: string): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new InvalidArgumentError('expected a comma-separated list');
  return items;
}

function columnList(value: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const item of list(value)) {
    const dot = item.indexOf('.');
    if (dot <= 0 || dot === item.length - 1) throw new InvalidArgumentError(`"${item}" is not table.column`);
    (out[item.slice(0, dot)] ??= []).push(item.slice(dot + 1));
  }
  return out;
}

// Shells make a literal tab awkward to type, so the common spellings of one are accepted.
function delimiter(value: string): string {
  if (value === '\\t' || value.toLowerCase() === 'tab') return '\t';
  if (value === '' || /["\r\n]/.test(value))
    throw new InvalidArgumentError('a delimiter must be non-empty and contain no quote or line break');
  return value;
}

function format(value: string): ExportFormat {
  const f = EXPORT_FORMATS.find((x) => x === value.toLowerCase());
  if (f === undefined) throw new InvalidArgumentError(`expected one of ${EXPORT_FORMATS.join(', ')}`);
  return f;
}

function lineEnding(value: string): 'crlf' | 'lf' {
  if (value !== 'crlf' && value !== 'lf') throw new InvalidArgumentError('expected crlf or lf');
  return value;
}

export function register(program: Command): void {
  const cmd = program
    .command('export')
    .description(
      'write tables to CSV, Parquet, JSON Lines or XLSX files (streamed; each file appears only when complete)',
    );
  addDatabaseOption(
    cmd,
    "database URL (default: the --pipeline's destination, else DATABASE_URL, the project's destination or sqlite:./data/scrape-etl.sqlite)",
  )
    .option('--out <dir>', 'directory for the files (created if missing)')
    .option(
      '--to <target>',
      "the lake: s3://bucket/prefix or a folder, in hive partitions with a manifest per table (needs --pipeline; the rows new since this target's last export; docs/lake.md)",
    )
    .option('--partition-by <a,b>', 'with --to: columns whose values make hive partitions below load_date', list)
    .option(
      '--table-format <format>',
      'with --to s3://… and --format parquet: iceberg commits each export to an Iceberg table per table in the REST catalog SCRAPE_ETL_ICEBERG_CATALOG names (docs/lake.md)',
    )
    .option(
      '--snapshot',
      'with --to: also write a compacted current snapshot of each changed table (one row per key, docs/lake.md)',
    )
    .option(
      '--run-id <id>',
      'with --to: names the files and manifests (default export-<time>); the same id again after an interrupted export replaces its objects instead of adding more',
    )
    .option('--format <format>', `file format: ${EXPORT_FORMATS.join(', ')}`, format, 'csv')
    .option('--tables <a,b>', 'tables to export (default: every data table)', list)
    .option(
      '--columns <t.c,...>',
      'write only these columns of the tables named (table.column, in file order)',
      columnList,
    )
    .option(
      '--since-last',
      "only rows loaded since this pipeline's last --since-last export (moves its watermark); a table with no new row gets no file",
    )
    .option(
      '--write-empty',
      'with --since-last: write a file holding no rows (a CSV header) for a table with no new row, instead of none',
    )
    .option(
      '--pipeline <pipeline>',
      'only rows of this pipeline (a file, or a name found through the project: its destination is read); also names the watermark and {pipeline} in file names',
    )
    .option('--delimiter <char>', 'CSV field delimiter (\\t or "tab" for a tab)', delimiter, ',')
    .option('--bom', 'CSV: start files with a UTF-8 byte order mark (for Excel)')
    .option(
      '--null-text <text>',
      'CSV: text written for NULL (default: empty cell; empty strings are written as "")',
      '',
    )
    .option(
      '--no-neutralize-formulas',
      'CSV and XLSX: do not prefix text cells starting with = + - @ tab or CR with a single quote',
    )
    .option(
      '--file-name <template>',
      'file name: a fixed name, or a template with {pipeline} {table} {timestamp} (default: {pipeline}_{table}_{timestamp}.<format>)',
    )
    .option('--line-ending <crlf|lf>', 'CSV record separator', lineEnding, 'crlf')
    .option('--json', 'print one JSON object per file written')
    .action(async (opts: ExportCliOptions) => {
      // Loaded here, not at the top, so that registering the command for --help stays cheap (see cli/main.ts).
      const usage = (message: string) => Object.assign(new Error(message), { exitCode: EXIT.usage });
      if ((opts.out === undefined) === (opts.to === undefined))
        throw usage(
          opts.out === undefined
            ? 'give --out <dir> (files) or --to <target> (the lake: s3://bucket/prefix or a folder)'
            : 'give --out or --to, not both',
        );
      if (
        (opts.partitionBy || opts.runId !== undefined || opts.tableFormat !== undefined || opts.snapshot) &&
        opts.to === undefined
      )
        throw usage(
          `${opts.partitionBy ? '--partition-by' : opts.runId !== undefined ? '--run-id' : opts.tableFormat !== undefined ? '--table-format' : '--snapshot'} applies to --to (the lake) only`,
        );
      if (opts.to !== undefined) {
        const { targetProblem } = await import('../../export/targets/index.js');
        const problem = targetProblem(opts.to);
        if (problem !== undefined) throw usage(`--to: ${problem}`);
        if (opts.tableFormat !== undefined) {
          const { TABLE_FORMATS, tableFormatProblem } = await import('../../export/targets/table-formats.js');
          const tableFormat = TABLE_FORMATS.find((f) => f === opts.tableFormat);
          if (tableFormat === undefined)
            throw usage(`--table-format: ${opts.tableFormat} is not one of ${TABLE_FORMATS.join(', ')}`);
          const formatProblem = tableFormatProblem({
            to: opts.to,
            format: opts.format,
            partition_by: opts.partitionBy,
            table_format: tableFormat,
          });
          if (formatProblem !== undefined)
            throw usage(`--${formatProblem.key.replace('_', '-')}: ${formatProblem.message}`);
        }
        if (opts.pipeline === undefined)
          throw usage('--to needs --pipeline: the lake keeps each pipeline under <prefix>/<pipeline>/');
        for (const [flag, set] of [
          ['--since-last', opts.sinceLast],
          ['--file-name', opts.fileName !== undefined],
          ['--columns', opts.columns !== undefined],
        ] as const) {
          if (set)
            throw usage(
              `${flag} does not apply to --to: the lake writes the rows new since its last export, all columns, in files named part-<run>-<part>`,
            );
        }
      }
      if (opts.writeEmpty && !opts.sinceLast)
        throw Object.assign(
          new Error('--write-empty applies to --since-last exports only (a full export always writes its files)'),
          { exitCode: EXIT.usage },
        );
      const { readTarget } = await import('./status.js');
      const { databaseUrl, ref } = await readTarget(opts.pipeline, opts.database);
      if (ref) opts.pipeline = ref.name;
      // Reads only: a database that is not there is an error, not a new empty file with "nothing to export".
      const { databaseFile, MissingDatabaseError, openForExport } = await import('../read-destination.js');
      const file = databaseFile(databaseUrl);
      const fs = await import('node:fs');
      if (file !== undefined && !fs.existsSync(file)) {
        throw new MissingDatabaseError(
          `no database at ${databaseUrl} (the file does not exist; check --database, DATABASE_URL or the pipeline's destination)`,
        );
      }
      const { exportTablesReport } = await import('../../export/export.js');
      const db = await openForExport(databaseUrl);
      try {
        if (opts.to !== undefined) {
          await exportToLakeCommand(db, opts as ExportCliOptions & { to: string; pipeline: string });
          return;
        }
        const out = opts.out!;
        const options: ExportOptions = {
          outDir: out,
          format: opts.format,
          mode: opts.sinceLast ? 'incremental' : 'full',
          ...(opts.sinceLast ? { writeEmpty: opts.writeEmpty ?? false } : {}),
          delimiter: opts.delimiter,
          bom: opts.bom ?? false,
          nullText: opts.nullText,
          neutralizeFormulas: opts.neutralizeFormulas,
          ...(opts.fileName !== undefined ? { fileName: opts.fileName } : {}),
          lineEnding: opts.lineEnding,
          ...(opts.pipeline !== undefined ? { pipeline: opts.pipeline } : {}),
          ...(opts.tables ? { tables: opts.tables } : {}),
          ...(opts.columns ? { columns: opts.columns } : {}),
        };
        const { files, unchanged } = await exportTablesReport(db, options).catch(async (err: unknown) => {
          // A folder that cannot be written: one sentence (which path, what is wrong, the fix), exit 2.
          const { describeExportFsError } = await import('../../export/fs-errors.js');
          const sentence = describeExportFsError(err, out, 'this command');
          throw sentence === undefined
            ? err
            : Object.assign(
                new Error(
                  sentence.replace(
                    ', or set exports[].dir in the pipeline file to another folder',
                    ', or give --out another folder',
                  ),
                ),
                { exitCode: EXIT.usage },
              );
        });
        if (files.length === 0 && unchanged.length === 0) {
          process.stderr.write(
            `nothing to export: ${opts.pipeline === undefined ? 'no table holds rows' : `no table holds rows of pipeline "${opts.pipeline}"`}\n`,
          );
        }
        for (const f of files) {
          process.stdout.write(
            opts.json ? `${JSON.stringify(f)}\n` : `${f.table}: ${f.rows} row${f.rows === 1 ? '' : 's'} -> ${f.file}\n`,
          );
        }
        // A table with nothing new since the last --since-last export: said, with no file (its watermark stays).
        for (const table of unchanged) {
          process.stdout.write(
            opts.json
              ? `${JSON.stringify({ table, file: null, rows: 0, noNewRows: true })}\n`
              : `${table}: no rows new since the last export, no file written\n`,
          );
        }
      } finally {
        await db.close();
      }
    });
}

/** `export --to`: the lake (export/targets/lake.ts), one line per table with its manifest. */
async function exportToLakeCommand(
  db: import('../../export/database.js').ExportDatabase,
  opts: ExportCliOptions & { to: string; pipeline: string },
): Promise<void> {
  const { exportToLake } = await import('../../export/targets/lake.js');
  const { fileTimestamp } = await import('../../export/file-name.js');
  const now = new Date();
  const { files, unchanged } = await exportToLake(db, {
    to: opts.to,
    pipeline: opts.pipeline,
    format: opts.format,
    partitionBy: opts.partitionBy ?? [],
    ...(opts.tableFormat === 'iceberg' ? { tableFormat: 'iceberg' as const } : {}),
    ...(opts.snapshot ? { snapshot: true } : {}),
    // A run of its own: the command's time names its files and manifests (a workflow's id does for a pipeline run).
    runId: opts.runId ?? `export-${fileTimestamp(now)}`,
    timestamp: now,
    ...(opts.tables ? { tables: opts.tables } : {}),
  });
  if (files.length === 0 && unchanged.length === 0)
    process.stderr.write(`nothing to export: no table holds rows of pipeline "${opts.pipeline}"\n`);
  for (const f of files)
    process.stdout.write(
      opts.json
        ? `${JSON.stringify({ ...f, manifest: f.file })}\n`
        : `${f.table}: ${f.rows} row${f.rows === 1 ? '' : 's'} -> ${f.file}\n`,
    );
  for (const table of unchanged) {
    process.stdout.write(
      opts.json
        ? `${JSON.stringify({ table, file: null, rows: 0, noNewRows: true })}\n`
        : `${table}: no rows new since the last export to ${opts.to}, nothing written\n`,
    );
  }
}
