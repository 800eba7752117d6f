// Scraped content never speaks in alerts: a watch's rows holding hostile values (a `link` that closes Slack's
// `<url|text>` and pings the channel, a `javascript:` URL, mentions typed plainly, a 1 MB value, more rows than fit)
// are evaluated on a real SQLite destination and delivered to a local HTTP receiver in both formats. What arrived
// is parsed by Python's json module (an independent, strict reader); the Slack text keeps only the links scrape-etl
// built (http(s) targets), the JSON body stays under the documented cap (256 KiB) and says what it left out. Run
// alerts (failed, did_not_run, ...) are built by the same functions and checked the same way.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverWatchEvents } from '../../../activities/checks.js';
import { createMetrics } from '../../../temporal/metrics.js';
import { readNotifyConfig } from '../../../alerts/notify-config.js';
import { jsonMessage, slackMessage, type RunFacts } from '../../../alerts/notify-messages.js';
import { evaluateWatches } from '../../../checks/watch.js';
import { openDatabase, type Database } from '../../../destinations/open.js';
import { withTransaction } from '../../../db/store/sql.js';
import type { PipelineSpec } from '../../../pipelines/spec.js';
import { startLocalServer, type LocalServer } from '../../support/local-server.js';

/** The cap docs/alerts.md promises for a JSON webhook body. */
const CAP_BYTES = 256 * 1024;
const HOSTILE_LINK = 'https://x.example/|Reset your password> <!channel';
const MB = 'x'.repeat(1024 * 1024);

// Strict: NaN/Infinity and duplicate keys are refused; prints what the assertions need.
const READER = String.raw`
import json, sys
def no_const(c): raise ValueError('non-JSON constant ' + c)
def no_dupes(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)): raise ValueError('duplicate key')
    return dict(pairs)
raw = sys.stdin.buffer.read()
doc = json.loads(raw.decode('utf-8'), parse_constant=no_const, object_pairs_hook=no_dupes)
texts = []
if 'text' in doc: texts.append(doc['text'])
for b in doc.get('blocks', []):
    if 'text' in b: texts.append(b['text']['text'])
    for e in b.get('elements', []): texts.append(e['text'])
rows = doc.get('rows')
print(json.dumps({
  'bytes': len(raw),
  'texts': texts,
  'keys': sorted(doc.keys()),
  'row_count': doc.get('row_count'),
  'rows': len(rows) if isinstance(rows, list) else None,
  'rows_omitted': doc.get('rows_omitted'),
  'rows_truncated': doc.get('rows_truncated'),
  'truncated': doc.get('truncated'),
  'values_truncated': doc.get('values_truncated'),
  'longest_value': max([len(v) for r in (rows or []) for v in r.values() if isinstance(v, str)] + [len(v) for v in doc.values() if isinstance(v, str)] + [0]),
  'links': [r.get('link') for r in (rows or [])],
}))
`;

interface Read {
  bytes: number;
  texts: string[];
  keys: string[];
  row_count: number | null;
  rows: number | null;
  rows_omitted: number | null;
  rows_truncated: boolean | null;
  truncated: boolean | null;
  values_truncated: number | null;
  longest_value: number;
  links: Array<string | null>;
}

function readWithPython(body: string): Read {
  return JSON.parse(
    execFileSync('python3', ['-c', READER], { input: body, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }),
  ) as Read;
}

/** Slack's link markup `<target|label>` as scrape-etl builds it. */
const LINK = /<([^<>|\s]+)\|([^<>]*)>/g;

/** Every rule a Slack text must keep, checked on what Python read. */
function expectQuietSlackText(text: string): Array<{ target: string; label: string }> {
  const links = [...text.matchAll(LINK)].map((m) => ({ target: m[1]!, label: m[2]! }));
  for (const l of links) {
    expect(l.target, text).toMatch(/^https?:\/\/[^\s|]+$/);
    expect(l.label).not.toMatch(/Reset your password/);
  }
  const rest = text.replace(LINK, '');
  expect(rest, 'no markup but the links built').not.toMatch(/[<>]/);
  expect(text).not.toContain('<!');
  expect(text).not.toContain('<@');
  // Entities are whole: every & starts &amp; &lt; or &gt;.
  expect(text.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
  expect(text).not.toMatch(/@(channel|here|everyone)\b/i);
  return links;
}

let dir: string;
let db: Database;
let receiver: LocalServer;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alerts-hostile-'));
  db = await openDatabase(`sqlite:${path.join(dir, 'etl.sqlite')}`);
  await withTransaction(db, async (tx) => {
    await tx.run(
      `INSERT INTO raw_responses (pipeline, kind, endpoint, request_key, workflow_id, received_at, loaded_at, body_sha256, body_bytes, body) VALUES ('hostile', 'results', '/api/results', 'k', 'wf-1', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'x', 0, '')`,
      [],
    );
    const [load] = await tx.all(`SELECT id FROM raw_responses WHERE workflow_id = 'wf-1'`, []);
    // An open-content table as the loader makes them: row_key and lineage, then the scraped fields.
    await tx.run(
      `CREATE TABLE hostile_items (row_key TEXT PRIMARY KEY, title TEXT, link TEXT, body TEXT, pipeline TEXT NOT NULL, load_id INTEGER NOT NULL, loaded_at TEXT NOT NULL, row_hash TEXT NOT NULL)`,
      [],
    );
    const rows: Array<[string, string, string | null, string]> = [
      ['a1', 'Great mug', HOSTILE_LINK, ''],
      ['a2', 'click me', 'javascript:alert(1)', ''],
      ['a3', '<!here> <@U024BE7LH> @channel @everyone & friends', 'https://ok.example/p?a=1&b=<2>', MB],
      ['a4', 'plain', 'https://ok.example/plain', ''],
    ];
    // More rows than fit under the cap, each with a value just under the per-value limit.
    for (let i = 0; i < 300; i++) rows.push([`b${String(i).padStart(3, '0')}`, `filler ${i}`, null, 'y'.repeat(3000)]);
    for (const [k, title, link, body] of rows) {
      await tx.run(`INSERT INTO hostile_items VALUES (?, ?, ?, ?, 'hostile', ?, '2026-01-01T00:00:00.000Z', 'h')`, [
        k,
        title,
        link,
        body,
        load!['id'] as number,
      ]);
    }
  });
  receiver = await startLocalServer();
  receiver.respond = (_req, res) => {
    res.writeHead(200);
    res.end('ok');
  };
});

afterAll(async () => {
  await receiver?.close();
  await db?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a watch event from hostile rows, delivered to a real receiver', () => {
  it('Slack: only http(s) links built by scrape-etl, no mention, no injected link; JSON: under the cap with what was left out', async () => {
    const spec = {
      name: 'hostile',
      kind: 'results',
      destination: { database: 'unused' },
      notify: {
        webhooks: [
          { url: `${receiver.base}/slack`, format: 'slack', on: ['new_rows'] },
          { url: `${receiver.base}/json`, format: 'json', on: ['new_rows'] },
        ],
      },
      watch: [{ type: 'new_rows', name: 'news', table: 'hostile_items', top: 10 }],
    } as unknown as PipelineSpec;
    const events = await evaluateWatches(db, { pipeline: 'hostile', workflowId: 'wf-1', watches: spec.watch! });
    expect(events[0]!.rowCount).toBe(304);
    const out = await deliverWatchEvents(
      { notify: readNotifyConfig({}), metrics: createMetrics() },
      db,
      { workflowId: 'wf-1', runId: 'r-1', spec },
      events,
    );
    expect(out.sent).toBe(2);

    const slack = receiver.seen.find((r) => r.url === '/slack')!;
    const s = readWithPython(slack.body);
    const links = s.texts.flatMap((t) => expectQuietSlackText(t));
    // The three http(s) rows among the top 10 are links, to the URL given (its `|`, spaces and brackets encoded).
    expect(links.map((l) => l.target)).toEqual([
      'https://x.example/%7CReset%20your%20password%3E%20%3C!channel',
      'https://ok.example/p?a=1&amp;b=%3C2%3E',
      'https://ok.example/plain',
    ]);
    const all = s.texts.join('\n');
    // javascript: is shown as text, never a target; the mentions are shown, not sent.
    expect(all).toContain('javascript:alert(1)');
    expect(links.some((l) => l.target.startsWith('javascript'))).toBe(false);
    expect(all).toContain('&lt;!here&gt;');

    const json = receiver.seen.find((r) => r.url === '/json')!;
    expect(Buffer.byteLength(json.body)).toBeLessThanOrEqual(CAP_BYTES);
    const j = readWithPython(json.body);
    expect(j.bytes).toBeLessThanOrEqual(CAP_BYTES);
    expect(j.row_count).toBe(304);
    expect(j.truncated).toBe(true);
    expect(j.rows_truncated).toBe(true);
    expect(j.rows).toBeGreaterThan(10);
    expect(j.rows! + j.rows_omitted!).toBe(304);
    expect(j.values_truncated).toBeGreaterThanOrEqual(1);
    expect(j.longest_value).toBeLessThanOrEqual(4096 + 1);
    // JSON carries the values as data (its readers escape them); the hostile link is kept, cut to the value limit.
    expect(j.links.slice(0, 3)).toEqual([HOSTILE_LINK, 'javascript:alert(1)', 'https://ok.example/p?a=1&b=<2>']);
  });
});

describe('run alerts built from hostile text', () => {
  const facts: RunFacts = {
    event: 'failed',
    detail: `<!channel> see <https://evil.example|your invoice> @here ${MB}`,
    pipeline: 'hostile',
    kind: 'results',
    workflowId: 'hostile--<!everyone>',
    runId: 'r',
    status: 'failed',
    error: `HTTP 500: <@U024BE7LH> <!subteam^S123> @everyone & more ${MB}`,
    exportStatus: 'failed',
    exportError: '<javascript:alert(1)|click>',
    rowsByTable: { '<!channel>': 1 },
    seenByTable: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    durationMs: 60_000,
    tokenUsage: null,
    webUiUrl: 'javascript:alert(1)',
    idempotencyKey: 'k',
  };

  it('Slack: every field escaped and mentions neutralised, in the notification text too; a non-http link is text', () => {
    const s = readWithPython(JSON.stringify(slackMessage(facts)));
    expect(s.texts.length).toBe(3);
    for (const t of s.texts) expect(expectQuietSlackText(t)).toEqual([]);
    expect(s.texts.join('\n')).toContain('javascript:alert(1)');
  });

  it('JSON: long values cut to the limit and counted, the body under the cap', () => {
    const body = JSON.stringify(jsonMessage(facts));
    const j = readWithPython(body);
    expect(j.bytes).toBeLessThanOrEqual(CAP_BYTES);
    expect(j.truncated).toBe(true);
    expect(j.values_truncated).toBe(2);
    expect(j.longest_value).toBeLessThanOrEqual(4096 + 1);
  });
});
