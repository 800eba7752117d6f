// Parquet through hyparquet-writer (pure JavaScript, no native code, no download): typed columns, snappy
// compression, one row group per ROW_GROUP_ROWS rows (or ROW_GROUP_BYTES of text, whichever comes first), each
// encoded and written to disk before the next is read, so memory holds one row group whatever the table size.
//
// Types (export/typed.ts decides them per column):
//   int64 -> INT64 (bigint all the way: ids beyond 2^53 stay exact)     double -> DOUBLE (so the `*_major` prices)
//   bool -> BOOLEAN        timestamps -> INT64 TIMESTAMP(MICROS), isAdjustedToUTC for instants
//   text, JSON -> BYTE_ARRAY UTF8 (STRING): JSON as its text, which every reader takes; blob -> BYTE_ARRAY
// Every column is OPTIONAL: SQL NULL is a Parquet null.
import { open, type FileHandle } from 'node:fs/promises';
import { ByteWriter, ParquetWriter, type ColumnSource, type SchemaElement } from 'hyparquet-writer';
import { boolOf, bytesOf, doubleOf, int64Of, textOf, timestampMicrosOf, typeColumns, type TypedColumn } from '../typed.js';
import type { FormatWriter } from './index.js';

/** Rows per row group: large enough for good compression and fast scans, small enough to keep memory flat. */
export const ROW_GROUP_ROWS = 50_000;
/** A row group also ends once its text and bytes reach this size, so wide text columns cannot balloon memory. */
const ROW_GROUP_BYTES = 64 * 1024 * 1024;

/**
 * hyparquet-writer's in-memory byte writer, emptied into the file after every row group. The library awaits the
 * promise flush() returns before it encodes more, and this module awaits each row group before reading on.
 */
class FileByteWriter extends ByteWriter {
  constructor(private readonly file: FileHandle) {
    super(1024 * 1024);
  }

  async flush(): Promise<void> {
    if (this.index === 0) return;
    await this.file.write(new Uint8Array(this.buffer, 0, this.index));
    this.index = 0;
  }

  override async finish(): Promise<void> {
    await this.flush();
  }
}

interface ParquetColumn {
  element: SchemaElement;
  convert: (value: unknown) => unknown;
  /** Approximate bytes a value holds in memory until its row group is written. */
  size: (value: unknown) => number;
}

function parquetColumn(col: TypedColumn): ParquetColumn {
  const base = { name: col.name, repetition_type: 'OPTIONAL' } as const;
  const fixed = (n: number) => () => n;
  switch (col.type) {
    case 'int64':
      return { element: { ...base, type: 'INT64' }, convert: int64Of(col), size: fixed(8) };
    case 'double':
      return { element: { ...base, type: 'DOUBLE' }, convert: doubleOf(col), size: fixed(8) };
    case 'bool':
      return { element: { ...base, type: 'BOOLEAN' }, convert: boolOf(col), size: fixed(1) };
    case 'timestamp_utc':
      return {
        // The legacy converted type as well, for readers that predate logical types; it implies UTC.
        element: { ...base, type: 'INT64', converted_type: 'TIMESTAMP_MICROS', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' } },
        convert: timestampMicrosOf(col),
        size: fixed(8),
      };
    case 'timestamp_local':
      return {
        element: { ...base, type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MICROS' } },
        convert: timestampMicrosOf(col),
        size: fixed(8),
      };
    case 'blob':
      return { element: { ...base, type: 'BYTE_ARRAY' }, convert: bytesOf(col), size: (v) => (v as Uint8Array).length };
    case 'json':
    case 'text':
      return {
        element: { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
        convert: textOf(col),
        // UTF-16 in memory until encoded.
        size: (v) => 2 * (v as string).length,
      };
  }
}

export const parquetWriter: FormatWriter = {
  async write({ path, table, columns, dialect, batches, signal }) {
    const cols = typeColumns(table, columns, dialect).map(parquetColumn);
    const width = cols.length;
    const file = await open(path, 'wx');
    try {
      const writer = new ParquetWriter({
        writer: new FileByteWriter(file),
        schema: [{ name: 'schema', num_children: width }, ...cols.map((c) => c.element)],
        codec: 'SNAPPY',
        createdBy: 'scrape-etl (hyparquet-writer)',
      });
      let data: unknown[][] = cols.map(() => []);
      let rows = 0;
      let bytes = 0;
      const writeGroup = async () => {
        if (rows === 0) return;
        const columnData: ColumnSource[] = cols.map((c, i) => ({ name: c.element.name, data: data[i]! as ColumnSource['data'] }));
        await writer.write({ columnData, rowGroupSize: rows });
        data = cols.map(() => []);
        rows = 0;
        bytes = 0;
      };
      for await (const batch of batches) {
        signal?.throwIfAborted();
        for (const raw of batch) {
          for (let c = 0; c < width; c++) {
            const v = raw[c];
            if (v === null || v === undefined) {
              data[c]!.push(null);
            } else {
              const typed = cols[c]!.convert(v);
              data[c]!.push(typed);
              bytes += cols[c]!.size(typed);
            }
          }
          rows++;
        }
        if (rows >= ROW_GROUP_ROWS || bytes >= ROW_GROUP_BYTES) await writeGroup();
      }
      await writeGroup();
      signal?.throwIfAborted();
      await writer.finish();
    } finally {
      await file.close();
    }
  },
};
