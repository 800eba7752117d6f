import { parse as losslessParse, stringify as losslessStringify } from 'lossless-json';

// Any integer above Number.MAX_SAFE_INTEGER (9007199254740991, 16 digits) needs at least 16 digits, so text
// without a 16-digit run cannot hold one and takes the native (much faster) parser. A digit run inside a
// string only costs the slow path, never correctness.
const LONG_DIGIT_RUN = /\d{16}/;
const PLAIN_INTEGER = /^-?\d+$/;

function parseNumberLiteral(literal: string): number | bigint {
  if (PLAIN_INTEGER.test(literal)) {
    const asNumber = Number(literal);
    return Number.isSafeInteger(asNumber) ? asNumber : BigInt(literal);
  }
  // Non-integers keep JSON.parse semantics (nearest double): there is no lossless JS type for them and the
  // service's contract has no fractional 64-bit fields.
  return Number(literal);
}

/**
 * Parses JSON text strictly (RFC 8259: no trailing commas, no comments). Integers outside the safe range
 * become `bigint`; every other number is a `number`. Throws SyntaxError on invalid JSON.
 */
export function parseJson(text: string): unknown {
  if (!LONG_DIGIT_RUN.test(text)) return JSON.parse(text);
  return losslessParse(text, null, parseNumberLiteral);
}

function containsBigInt(value: unknown, depth = 0): boolean {
  if (typeof value === 'bigint') return true;
  if (value === null || typeof value !== 'object' || depth > 256) return false;
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
