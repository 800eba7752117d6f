// Turns one database value into the text of one CSV cell. Every value is formatted here, before it is encoded as
// CSV (formats/csv.ts), so both dialects write the same text for the same data: integers exact (64-bit ids never pass through
// a float), booleans true/false, timestamps ISO 8601, JSON as JSON text.
import type { ColumnInfo } from './columns.js';
import type { ValueForms } from '../destinations/contract.js';

export interface CellOptions {
  /** Text written for SQL NULL. '' writes an empty unquoted cell (empty strings are then written as ""). */
  nullText: string;
  /** Prefix text cells that a spreadsheet would run as a formula with a single quote (OWASP CSV injection advice). */
  neutralizeFormulas: boolean;
}

/** Returns the cell text, or null for "write an empty unquoted cell". */
export type CellFormatter = (value: unknown) => string | null;

// OWASP's list (=, +, -, @, tab, carriage return) plus line feed, and the full-width forms that some spreadsheets
// normalise. A leading LF is as good as a leading CR at hiding "=..." on what a spreadsheet shows as the cell's
// second line, and some importers strip leading line breaks before deciding whether a cell is a formula.
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r', '\n', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']);
// A cell that is only a decimal number cannot carry a formula, and "-1" must stay -1 even in a text column.
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function neutralizeFormula(text: string): string {
  const first = text[0];
  if (first === undefined || !FORMULA_TRIGGERS.has(first) || PLAIN_NUMBER.test(text)) return text;
  return `'${text}`;
}

/** By how the values arrive (the export reader's valueForms): the driver's JavaScript values, or SQL text. */
const FORMATTERS = {
  'js-values': (col: ColumnInfo, opts: CellOptions) => jsValueFormatter(col, opts),
  'sql-text': (col: ColumnInfo, opts: CellOptions) => sqlTextFormatter(col, opts),
} as const satisfies Record<ValueForms['values'], (col: ColumnInfo, opts: CellOptions) => (value: unknown) => string>;

export function cellFormatter(col: ColumnInfo, forms: ValueForms, opts: CellOptions): CellFormatter {
  const nullCell = opts.nullText === '' ? null : opts.nullText;
  const inner = FORMATTERS[forms.values](col, opts);
  return (value) => (value === null || value === undefined ? nullCell : inner(value));
}

/**
 * Whether every number (integer or real, bigint or number) in this column is written as String(value), the same
 * digits whichever of the two types the driver gave it. False where the column's kind gives numbers a meaning:
 * booleans (0/1 as true/false) and epoch timestamps. Values in SQL text arrive as text, never as numbers.
 * formats/csv.ts writes such cells without calling the formatter; this is the one place that decides.
 */
export function numbersAsIs(col: ColumnInfo, forms: ValueForms): boolean {
  // SQL text carries numbers as text, never as numbers.
  return forms.values === 'js-values' && jsNumberFormatter(col) === String;
}

/** How a number of a column of JavaScript values is written; String for "as it is" (a safe integer: the same text as a bigint or a number). */
function jsNumberFormatter(col: ColumnInfo): (value: bigint | number) => string {
  if (col.kind === 'boolean')
    return (value) => (value === 1n || value === 1 ? 'true' : value === 0n || value === 0 ? 'false' : String(value));
  const epochScale = col.kind === 'timestamp_s' ? 1000 : col.kind === 'timestamp_ms' ? 1 : 0;
  if (epochScale !== 0) return (value) => isoFromEpochMs(Number(value) * epochScale, col);
  return String;
}

function jsValueFormatter(col: ColumnInfo, opts: CellOptions): (value: unknown) => string {
  const text = opts.neutralizeFormulas && col.kind !== 'json' ? neutralizeFormula : (s: string) => s;
  const number = jsNumberFormatter(col);
  return (value) => {
    switch (typeof value) {
      case 'bigint':
      case 'number':
        return number(value);
      case 'string':
        return text(value);
      case 'boolean':
        return value ? 'true' : 'false';
      default:
        if (value instanceof Uint8Array) {
          return col.kind === 'json' ? Buffer.from(value).toString('utf8') : `\\x${Buffer.from(value).toString('hex')}`;
        }
        throw new Error(`export: column "${col.name}" holds a value of unexpected type ${typeof value}`);
    }
  };
}

function isoFromEpochMs(ms: number, col: ColumnInfo): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) throw new Error(`export: column "${col.name}" holds ${ms} ms, not a valid timestamp`);
  return d.toISOString();
}

// Values in SQL text arrive as the server's own text (Postgres's pool parses no type, DuckDB's rows are converted to
// the same text), which is already exact for bigint and numeric and already JSON for json/jsonb.
const TIMESTAMPTZ_TEXT_UTC = /^(\d{4,}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)\+00$/;

// Postgres drops trailing zeros of the fraction; JavaScript's toISOString (what SQLite rows hold) always writes
// milliseconds. Padding to at least three digits makes the same instant the same text in both dialects.
function millisAtLeast(time: string): string {
  const dot = time.indexOf('.');
  if (dot < 0) return `${time}.000`;
  const fraction = time.slice(dot + 1);
  return fraction.length >= 3 ? time : `${time}${'0'.repeat(3 - fraction.length)}`;
}

function sqlTextFormatter(col: ColumnInfo, opts: CellOptions): (value: unknown) => string {
  const asText = (value: unknown): string => {
    if (typeof value !== 'string') throw new Error(`export: column "${col.name}" did not arrive as text from Postgres`);
    return value;
  };
  switch (col.kind) {
    case 'boolean':
      return (v) => (asText(v) === 't' ? 'true' : 'false');
    case 'timestamptz':
      // The export session runs with TimeZone UTC, so every value ends in +00; infinity stays as written.
      return (v) =>
        asText(v).replace(
          TIMESTAMPTZ_TEXT_UTC,
          (_all, date: string, time: string) => `${date}T${millisAtLeast(time)}Z`,
        );
    case 'timestamp':
      return (v) => asText(v).replace(' ', 'T');
    case 'text':
    case 'other':
      return opts.neutralizeFormulas ? (v) => neutralizeFormula(asText(v)) : asText;
    default:
      return asText;
  }
}
