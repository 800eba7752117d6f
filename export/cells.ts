// Turns one database value into the text of one CSV cell. Every value is formatted here, before it is encoded as
// CSV (formats/csv.ts), so both dialects write the same text for the same data: integers exact (64-bit ids never pass through
// a float), booleans true/false, timestamps ISO 8601, JSON as JSON text.
import type { ColumnInfo } from './columns.js';

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

/** Per value forms (the export reader's valueForms): SQLite's own values, or Postgres's text. */
const FORMATTERS = {
  sqlite: (col: ColumnInfo, opts: CellOptions) => sqliteFormatter(col, opts),
  postgres: (col: ColumnInfo, opts: CellOptions) => postgresFormatter(col, opts),
} as const;
/** Whether the forms carry numbers as numbers (SQLite) rather than text. */
const NUMBERS_AS_VALUES = { sqlite: true, postgres: false } as const;

export function cellFormatter(col: ColumnInfo, dialect: 'sqlite' | 'postgres', opts: CellOptions): CellFormatter {
  const nullCell = opts.nullText === '' ? null : opts.nullText;
  const inner = FORMATTERS[dialect](col, opts);
  return (value) => (value === null || value === undefined ? nullCell : inner(value));
}

/**
 * Whether every number (integer or real, bigint or number) in this column is written as String(value), the same
 * digits whichever of the two types the driver gave it. False where the column's kind gives numbers a meaning:
 * booleans (0/1 as true/false) and epoch timestamps. Postgres values arrive as text, never as numbers.
 * formats/csv.ts writes such cells without calling the formatter; this is the one place that decides.
 */
export function numbersAsIs(col: ColumnInfo, dialect: 'sqlite' | 'postgres'): boolean {
  // Postgres values arrive as text, never as numbers.
  return NUMBERS_AS_VALUES[dialect] && sqliteNumberFormatter(col) === String;
}

/** How a SQLite column writes a number; String for "as it is" (a safe integer: the same text as a bigint or a number). */
function sqliteNumberFormatter(col: ColumnInfo): (value: bigint | number) => string {
  if (col.kind === 'boolean')
    return (value) => (value === 1n || value === 1 ? 'true' : value === 0n || value === 0 ? 'false' : String(value));
  const epochScale = col.kind === 'timestamp_s' ? 1000 : col.kind === 'timestamp_ms' ? 1 : 0;
  if (epochScale !== 0) return (value) => isoFromEpochMs(Number(value) * epochScale, col);
  return String;
}

function sqliteFormatter(col: ColumnInfo, opts: CellOptions): (value: unknown) => string {
  const text = opts.neutralizeFormulas && col.kind !== 'json' ? neutralizeFormula : (s: string) => s;
  const number = sqliteNumberFormatter(col);
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

// Postgres values arrive as the server's own text (every type parser is the identity; see rows.ts), which is
// already exact for bigint and numeric and already JSON for json/jsonb.
const PG_TIMESTAMPTZ_UTC = /^(\d{4,}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)\+00$/;

// Postgres drops trailing zeros of the fraction; JavaScript's toISOString (what SQLite rows hold) always writes
// milliseconds. Padding to at least three digits makes the same instant the same text in both dialects.
function millisAtLeast(time: string): string {
  const dot = time.indexOf('.');
  if (dot < 0) return `${time}.000`;
  const fraction = time.slice(dot + 1);
  return fraction.length >= 3 ? time : `${time}${'0'.repeat(3 - fraction.length)}`;
}

function postgresFormatter(col: ColumnInfo, opts: CellOptions): (value: unknown) => string {
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
        asText(v).replace(PG_TIMESTAMPTZ_UTC, (_all, date: string, time: string) => `${date}T${millisAtLeast(time)}Z`);
    case 'timestamp':
      return (v) => asText(v).replace(' ', 'T');
    case 'text':
    case 'other':
      return opts.neutralizeFormulas ? (v) => neutralizeFormula(asText(v)) : asText;
    default:
      return asText;
  }
}
