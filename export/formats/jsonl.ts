// JSON Lines: one JSON object per row and line, keys in column order, UTF-8, streamed batch by batch. Each line
// is assembled as text rather than through JSON.stringify of an object, because JSON.stringify cannot write a
// bigint: 64-bit integers go out as their exact decimal digits (9007199254740993, never ...992 or a string).
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { cellFormatter } from '../cells.js';
import type { RawRow } from '../rows.js';
import { boolOf, doubleOf, int64Of, textOf, typeColumns, type TypedColumn } from '../typed.js';
import type { FormatWriter } from './index.js';
import type { ValueForms } from '../../destinations/contract.js';

type Encoder = (value: unknown) => string;

const LINE_BREAK = /[\r\n]/g;

function encoder(col: TypedColumn, forms: ValueForms): Encoder {
  switch (col.type) {
    case 'int64': {
      const int = int64Of(col);
      return (v) => int(v).toString();
    }
    case 'double': {
      const num = doubleOf(col);
      // JSON has no NaN or Infinity; those (rare: Postgres allows them) are written as strings "NaN", "Infinity".
      return (v) => {
        const n = num(v);
        return Number.isFinite(n) ? String(n) : `"${String(n)}"`;
      };
    }
    case 'bool': {
      const bool = boolOf(col);
      return (v) => (bool(v) ? 'true' : 'false');
    }
    case 'json': {
      const text = textOf(col);
      // The stored JSON is embedded as a value, not as a string, exactly as written (big integers inside stay
      // exact). JSON.parse only validates it. Raw CR and LF can only be whitespace between tokens in valid JSON
      // (inside strings they are escaped), so replacing them keeps the row on one line without changing a value.
      return (v) => {
        const s = text(v);
        try {
          JSON.parse(s);
        } catch {
          throw new Error(
            `export: column "${col.name}" holds text that is not JSON (${JSON.stringify(s.slice(0, 40))}); JSON Lines embeds JSON columns as values`,
          );
        }
        return s.replace(LINE_BREAK, ' ');
      };
    }
    default: {
      // Text, timestamps and bytes: the same text as CSV (timestamps ISO 8601 in UTC, bytes as \x hex), never
      // neutralised: JSON Lines feeds programs, which must see the data as stored.
      const cell = cellFormatter(col, forms, { nullText: '', neutralizeFormulas: false });
      return (v) => JSON.stringify(cell(v) ?? '');
    }
  }
}

async function* lines(batches: AsyncIterable<RawRow[]>, keys: string[], encoders: Encoder[]): AsyncGenerator<string> {
  const width = encoders.length;
  for await (const batch of batches) {
    let out = '';
    for (const raw of batch) {
      let line = '{';
      for (let c = 0; c < width; c++) {
        const v = raw[c];
        line += keys[c]! + (v === null || v === undefined ? 'null' : encoders[c]!(v));
      }
      out += `${line}}\n`;
    }
    yield out;
  }
}

export const jsonlWriter: FormatWriter = {
  async write({ path, table, columns, typing, batches, signal }) {
    const typed = typeColumns(table, columns, typing);
    // "name": prefixes, with the separating comma, computed once per column.
    const keys = typed.map((c, i) => `${i === 0 ? '' : ','}${JSON.stringify(c.name)}:`);
    const text = lines(
      batches,
      keys,
      typed.map((c) => encoder(c, typing.valueForms)),
    );
    await pipeline(Readable.from(text, { objectMode: false }), createWriteStream(path, { flags: 'wx' }), {
      ...(signal ? { signal } : {}),
    });
  },
};
