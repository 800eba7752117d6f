import {
  isLosslessNumber,
  LosslessNumber,
  parse as losslessParse,
  stringify as losslessStringify,
} from 'lossless-json';

// Any integer above Number.MAX_SAFE_INTEGER (9007199254740991, 16 digits) needs at least 16 digits, so text
// without a run of 16 digits outside its strings cannot hold one and takes the native (much faster) parser.
// Digits inside strings (ids in URLs, image hashes) never become numbers, so they do not send a body down the slow
// path; the run is found in the same pass over the text as its depth (scan).
const LONG_DIGIT_RUN = 16;
const PLAIN_INTEGER = /^-?\d+$/;

function parseNumberLiteral(literal: string): number | bigint {
  if (PLAIN_INTEGER.test(literal)) {
    const asNumber = Number(literal);
    return Number.isSafeInteger(asNumber) ? asNumber : BigInt(literal);
  }
  // Non-integers keep JSON.parse semantics (nearest double): there is no lossless JS type for them and the
  // service's contract has no fractional 64-bit fields. A literal no double holds at all (1e400 is not Infinity,
  // 1e-400 is not 0) stays its text, as a LosslessNumber that stringifyJson writes back unchanged.
  const n = Number(literal);
  if (!Number.isFinite(n) || (n === 0 && /[1-9]/.test(literal.split(/[eE]/)[0]!)))
    return new LosslessNumber(literal) as unknown as number;
  return n;
}

/**
 * Deepest nesting of arrays and objects parseJson accepts. The service's documented bodies nest about ten
 * levels; a body nested thousands deep is garbage, and everything that walks parsed JSON recursively (schema
 * validation, the lossless parser, flattening into tables) would die of a stack overflow on it, far from the
 * endpoint that sent it.
 */
// 1024 rather than a few hundred: one result's content nested a few hundred deep must not make its whole page
// unreadable (its siblings would be lost with it); the loader quarantines that one result instead
// (db/model/flatten/content.ts MAX_CONTENT_DEPTH). Recursive walkers handle 1024 levels well within Node's stack.
export const MAX_JSON_DEPTH = 1024;

/** JSON nested deeper than the limit; a SyntaxError so callers treating unparsable text as text keep working. */
export class JsonDepthError extends SyntaxError {
  constructor(
    readonly maxDepth: number,
    /** Offset (UTF-16 units) of the bracket that went past the limit. */
    readonly position: number,
    line: number,
    column: number,
  ) {
    super(`JSON nested deeper than ${maxDepth} levels at position ${position} (line ${line}, column ${column})`);
    this.name = 'JsonDepthError';
  }
}

// One pass over the text, skipping strings, counting brackets and the digits of each run outside strings:
// iterative, so it cannot overflow the stack itself, and cheap next to the parse (a few ms per MB). Returns whether
// a number literal may be beyond the safe integers (a run of LONG_DIGIT_RUN digits or more).
function scan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let digits = 0;
  let longRun = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 /* 0 */ && c <= 57 /* 9 */) {
      if (++digits >= LONG_DIGIT_RUN) longRun = true;
      continue;
    }
    // An exponent (a digit before `e`/`E`): the literal may be beyond any double (1e400), which only the lossless
    // parser keeps.
    if ((c === 101 /* e */ || c === 69) /* E */ && i > 0) {
      const p = text.charCodeAt(i - 1);
      if ((p >= 48 && p <= 57) || p === 46 /* . */) longRun = true;
    }
    digits = 0;
    if (c === 34 /* " */) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > maxDepth) {
        const before = text.slice(0, i);
        const line = before.split('\n').length;
        throw new JsonDepthError(maxDepth, i, line, i - before.lastIndexOf('\n'));
      }
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return longRun;
}

export interface ParseJsonOptions {
  /** Default MAX_JSON_DEPTH. */
  maxDepth?: number;
}

/**
 * Parses JSON text strictly (RFC 8259: no trailing commas, no comments). Integers outside the safe range
 * become `bigint`; a literal no double holds (1e400, 1e-400) a lossless-json `LosslessNumber` (its text); every
 * other number is a `number`. Throws SyntaxError on invalid JSON, and JsonDepthError
 * (a SyntaxError) on nesting deeper than `maxDepth`.
 */
export function parseJson(text: string, opts: ParseJsonOptions = {}): unknown {
  return parseJsonTelling(text, opts).value;
}

/**
 * parseJson, telling whether the value may hold a bigint or a LosslessNumber (`lossless`): when it cannot,
 * writing it back needs no search for them (stringifyJson's walk of the whole value) and plain JSON.stringify is exact.
 */
export function parseJsonTelling(text: string, opts: ParseJsonOptions = {}): { value: unknown; lossless: boolean } {
  if (!scan(text, opts.maxDepth ?? MAX_JSON_DEPTH)) return { value: JSON.parse(text), lossless: false };
  return { value: losslessParse(text, null, parseNumberLiteral), lossless: true };
}

function containsBigInt(value: unknown, depth = 0): boolean {
  if (typeof value === 'bigint') return true;
  if (value === null || typeof value !== 'object' || depth > MAX_JSON_DEPTH) return false;
  if (isLosslessNumber(value)) return true;
  if (Array.isArray(value)) return value.some((v) => containsBigInt(v, depth + 1));
  for (const v of Object.values(value)) if (containsBigInt(v, depth + 1)) return true;
  return false;
}

/** JSON.stringify that writes bigints as plain JSON numbers (`12345678901234567890`, not a string). */
export function stringifyJson(value: unknown, space?: number | string): string {
  if (!containsBigInt(value)) {
    const text = JSON.stringify(value, null, space);
    if (text === undefined) throw new TypeError(`value of type ${typeof value} has no JSON representation`);
    return text;
  }
  const text = losslessStringify(value, null, space);
  if (text === undefined) throw new TypeError(`value of type ${typeof value} has no JSON representation`);
  return text;
}
