// zod building blocks of the `checks:` and `watch:` entries (checks/check-types/, checks/watch-types/). Messages are
// written for the person editing the file.
import { z } from 'zod';
import { DURATION_PATTERN } from '../pipelines/duration.js';
import { nonEmpty, positiveInt } from '../pipelines/fields.js';
import { ExpressionError, parseExpression } from './expression.js';

const PERCENT = /^[0-9]+(\.[0-9]+)?%$/;
export const percent = z.string().regex(PERCENT, "expected a percentage such as '5%' or '50%'");
export const severity = z
  .enum(['warn', 'error'])
  .default('error')
  .describe('error: the run ends failed_checks; warn: an alert only');
export const name = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]+$/, 'expected letters, digits and _ . : -')
  .max(200)
  .optional();
export const table = nonEmpty.describe('a table the pipeline writes');
export const column = nonEmpty;
export const duration = z.string().regex(new RegExp(DURATION_PATTERN), "expected a duration such as '26h' or '30m'");
export { nonEmpty };

export const expression = z.string().superRefine((s, ctx) => {
  try {
    parseExpression(s);
  } catch (err) {
    if (err instanceof ExpressionError)
      ctx.addIssue({ code: 'custom', message: `${err.message} (at character ${err.offset + 1} of '${s}')` });
    else throw err;
  }
});

export const LOGICAL_TYPES = ['int', 'double', 'text', 'bool', 'json', 'timestamp', 'any'] as const;

/** The keys every watch has. */
export const watchBase = {
  name,
  filter: expression.optional().describe('only rows satisfying this expression trigger the event'),
  top: positiveInt.max(100).default(10).describe('rows listed in a Slack message'),
};
export const level = z.enum(['product', 'model']).default('product');
