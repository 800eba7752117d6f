// A run whose service reported no tokenUsage is said to have unknown tokens in its Slack message (issue 36), and
// its JSON body carries token_usage null (read back with Python's json), never 0.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { jsonMessage, slackMessage, type RunFacts } from '../../../alerts/notify-messages.js';
import { runFacts } from '../../support/run-facts.js';

const facts = (tokenUsage: number | null): RunFacts =>
  runFacts({ rowsByTable: { marketplace_products: 2 }, tokenUsage });

const slackText = (m: Record<string, unknown>) => JSON.stringify(m['blocks']);

describe('unknown tokens in alerts', () => {
  it('Slack says tokens unknown when the service reported none, and the figure when it did', () => {
    expect(slackText(slackMessage(facts(null)))).toContain('tokens unknown');
    expect(slackText(slackMessage(facts(null)))).not.toMatch(/tokens 0\b/);
    expect(slackText(slackMessage(facts(1234)))).toContain('tokens 1234');
  });

  it('the JSON body carries token_usage null, not 0', () => {
    const body = JSON.stringify(jsonMessage(facts(null)));
    const read = execFileSync(
      'python3',
      ['-c', 'import json,sys; d=json.load(sys.stdin); print(repr(d["token_usage"]))'],
      { input: body },
    )
      .toString()
      .trim();
    expect(read).toBe('None');
  });
});
