// The activities' side of spend control: each billable request is recorded in the destination before it is sent, in
// the transaction that checks the run's budgets (db/store/spend.ts reserveCall), and its tokens when its answer comes. A
// request a limit refuses is not sent: the call ends with BudgetExhaustedError, which the run modes turn into a run
// that starts no more calls and ends partial with the reason 'budget' (lib/run-states.ts).
import { randomUUID } from 'node:crypto';
import type { CallOptions } from '../client/index.js';
import type { Database } from '../destinations/contract.js';
import { recordCallTokens, reserveCall, spendCallKey, type Refusal } from '../db/store/spend.js';
import { budgetLimitsOf, limitWhere, unitsText, type BudgetedSpec } from './limits.js';

/** A call a budget refused; nothing was sent. */
export class BudgetExhaustedError extends Error {
  override readonly name = 'BudgetExhaustedError';
  constructor(
    readonly refusal: Refusal,
    pipeline: string,
  ) {
    super(refusalSentence(refusal, pipeline));
  }
}

/** One sentence for a call a limit refused: which limit, what it counted, what to do. */
export function refusalSentence(r: Refusal, pipeline: string): string {
  const { limit: l } = r;
  const period = l.period === 'run' ? 'this run' : l.period === 'day' ? 'today (UTC)' : 'this month (UTC)';
  return (
    `${limitWhere(l, pipeline)} is ${unitsText(l.resource, l.limit)} and ${unitsText(l.resource, r.spent)} were spent ${period}: ` +
    `no further service calls were started; raise ${l.key}${l.period === 'run' ? '' : ' or wait for the next period'}`
  );
}

export interface MeterContext {
  db: Database;
  spec: BudgetedSpec;
  workflowId: string;
  /** The activity and its attempt: with what is asked for and the client's attempt, what makes a request unique. */
  activityId: string;
  activityAttempt: number;
  now?: () => Date;
}

export interface MeteredCall {
  /** Pass as the client call's options: records (or refuses) each HTTP attempt before it is sent. */
  options: Pick<CallOptions, 'beforeAttempt'>;
  /** The service's tokenUsage of the answer, recorded on the attempt that got it; null: it reported none. */
  answered(tokens: number | null): Promise<void>;
}

/** Meters the billable calls of one activity attempt. */
export function spendMeter(m: MeterContext) {
  const limits = budgetLimitsOf(m.spec);
  // This execution of the activity attempt: a re-execution (a local activity after its worker died) is new requests.
  const execution = randomUUID();
  const project = m.spec.project_budget?.project ?? null;
  const now = m.now ?? (() => new Date());
  return {
    call(endpoint: string, requestKey: string, createsScraper: boolean): MeteredCall {
      let lastKey: string | undefined;
      return {
        options: {
          beforeAttempt: async (clientAttempt: number) => {
            const callKey = spendCallKey({
              workflowId: m.workflowId,
              activityId: m.activityId,
              activityAttempt: m.activityAttempt,
              execution,
              requestKey,
              clientAttempt,
            });
            const refused = await reserveCall(
              m.db,
              {
                callKey,
                pipeline: m.spec.name,
                project,
                workflowId: m.workflowId,
                endpoint,
                requestKey,
                createsScraper,
                calledAt: now(),
              },
              limits,
            );
            if (refused) throw new BudgetExhaustedError(refused, m.spec.name);
            lastKey = callKey;
          },
        },
        async answered(tokens: number | null) {
          if (tokens !== null && lastKey !== undefined) await recordCallTokens(m.db, lastKey, tokens);
        },
      };
    },
  };
}

export type SpendMeter = ReturnType<typeof spendMeter>;
