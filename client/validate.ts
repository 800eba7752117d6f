import type { z } from 'zod';
import { ApiValidationError, redactToken, type ValidationIssue } from './errors.js';

/** `['data', 'item', 'models', 3, 'price']` -> `data.item.models[3].price` */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else {
      const name = String(key);
      out += /^[A-Za-z_$][\w$]*$/.test(name) ? (out ? `.${name}` : name) : `[${JSON.stringify(name)}]`;
    }
  }
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing (field missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'non-integer number';
  return typeof value;
}

function issueMessage(issue: z.core.$ZodIssue, root: unknown): string {
  if (issue.code === 'invalid_type') {
    // zod's default wording ("Invalid input: expected string, received number") is replaced by one that also
    // tells a missing field from a wrong one.
    const expected = issue.expected === 'int' ? 'integer' : issue.expected;
    return `expected ${expected}, got ${describe(valueAt(root, issue.path))}`;
  }
  if (issue.code === 'unrecognized_keys') {
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')} (check the spelling)`;
  }
  return issue.message;
}

export function toIssues(error: z.ZodError, root: unknown, token?: string): ValidationIssue[] {
  return error.issues.map((issue) => {
    let path = issue.path;
    if (issue.code === 'unrecognized_keys' && issue.keys.length === 1) path = [...path, issue.keys[0] as string];
    return { path: formatJsonPath(path), message: redactToken(issueMessage(issue, root), token ?? '') };
  });
}

/**
 * Validates `value` with `schema`; on failure throws ApiValidationError whose message is
 * `<endpoint>: <path>: <what is wrong>` for the first issue (plus a count of the others).
 */
export function validateWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  ctx: { endpoint: string; side: 'request' | 'response'; status?: number; token?: string },
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = toIssues(parsed.error, value, ctx.token);
  const first = issues[0] ?? { path: '', message: 'invalid' };
  const where = ctx.side === 'request' ? 'request body' : 'response body';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? 's' : ''})` : '';
  const message = `${ctx.endpoint}: ${first.path || `<${where}>`}: ${first.message}${more}${
    ctx.side === 'request' ? ' [invalid request, not sent]' : ''
  }`;
  throw new ApiValidationError(message, {
    endpoint: ctx.endpoint,
    ...(ctx.status !== undefined ? { status: ctx.status } : {}),
    retryable: false,
    path: first.path,
    issues,
    side: ctx.side,
  });
}
