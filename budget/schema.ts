// The `budget:` section's schema, one definition for pipeline files (pipelines/schema.ts) and the project file
// (cli/project-schema.ts): their errors name the file, the path (budget.calls.day) and what to write instead.
import { z } from 'zod';
import { shareOf } from './limits.js';

const limit = (what: string) =>
  z
    .number({ error: `expected a whole number of ${what} (e.g. 100); leave the key out for no limit` })
    .int(`expected a whole number of ${what} (e.g. 100)`)
    .nonnegative(`expected 0 or more ${what}; leave the key out for no limit`);

const limits = (what: string) =>
  z
    .strictObject({
      run: limit(what).optional().describe(`${what} one run may spend`),
      day: limit(what).optional().describe(`${what} all runs may spend per UTC day`),
      month: limit(what).optional().describe(`${what} all runs may spend per UTC month`),
    })
    .optional();

export const budgetSchema = z
  .strictObject({
    calls: limits('service calls').describe(
      'billable calls to the service: each create-and-run and each synchronous scrape (job-board, marketplace), retries included',
    ),
    scrapers: limits('scrapers').describe('scrapers created (create-and-run calls of pdf and leads-* pipelines)'),
    tokens: limits('tokens').describe("the service's tokenUsage as its answers report it (job-board)"),
    warn_at: z
      .string()
      .refine((s) => shareOf(s) !== undefined, "expected a share of the limit such as '80%' (from 1% to 100%)")
      .optional()
      .describe("share of a limit at which budget_warning is sent (default '80%')"),
  })
  .describe(
    'spend limits (docs/budgets.md): a run that would exceed one is refused before any call; a run reaching one stops starting calls and ends partial',
  );
