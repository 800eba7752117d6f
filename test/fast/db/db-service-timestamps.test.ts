// The one stored form of the service's timestamps (lib/iso-timestamp.ts): every ISO 8601 instant the service may
// send becomes the text Postgres and DuckDB give back for the same instant (at least milliseconds, no trailing zeros
// beyond them, UTC), anything else is not an instant. And a load of a response with a timestamp that is not one
// stores NULL in that column, says so, keeps the response and loads the rest (a real SQLite file): the client used
// to refuse the whole response for it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalTimestamp } from '../../../lib/iso-timestamp.js';
import { parseJson, stringifyJson } from '../../../lib/json.js';
import { createAndRunResponseSchema } from '../../../client/schemas.js';
import { openDatabase } from '../../../destinations/open.js';
import { loadBatch } from '../../../db/store/load.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'db-service-timestamps-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('canonicalTimestamp', () => {
  it.each([
    ['2022-11-20T11:54:52.000000Z', '2022-11-20T11:54:52.000Z'],
    ['2022-11-20T11:54:52Z', '2022-11-20T11:54:52.000Z'],
    ['2022-11-20T11:54:52.5Z', '2022-11-20T11:54:52.500Z'],
    ['2022-11-20T11:54:52.123400Z', '2022-11-20T11:54:52.1234Z'],
    ['2022-11-20T11:54:52.123456789Z', '2022-11-20T11:54:52.123456Z'],
    ['2022-11-20 13:54:52.25+02:00', '2022-11-20T11:54:52.250Z'],
    ['2022-11-20T06:54:52-0500', '2022-11-20T11:54:52.000Z'],
    ['2022-11-20T11:54:52+00', '2022-11-20T11:54:52.000Z'],
    ['2024-02-29T23:59:59.999999z', '2024-02-29T23:59:59.999999Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
  ])('%s is %s', (text, stored) => {
    expect(canonicalTimestamp(text)).toBe(stored);
  });

  it.each([
    'yesterday',
    '',
    '2022-11-20',
    '2022-11-20T11:54:52',
    '2022-11-20T11:54Z',
    '2023-02-29T00:00:00Z',
    '2022-13-01T00:00:00Z',
    '2022-11-20T24:00:00Z',
    '2022-11-20T11:54:60Z',
    '2022-11-20T11:54:52+25:00',
    '0001-01-01T00:00:00+01:00',
    ' 2022-11-20T11:54:52Z',
  ])('%j is not an instant', (text) => {
    expect(canonicalTimestamp(text)).toBeNull();
  });
});

describe('a timestamp that is not one', () => {
  it('is stored NULL with a warning, the response kept and the rest loaded', async () => {
    const body = stringifyJson({
      message: 'ok',
      scraper: {
        id: 5,
        name: 's',
        url: ['https://x.example/a'],
        urls: ['https://x.example/a'],
        scheduled: false,
        schedule: null,
        created_at: 'last tuesday',
        updated_at: '2022-11-20T11:54:52.000000Z',
      },
      results: [],
    });
    const db = await openDatabase(`sqlite:${path.join(dir, 'bad-ts.sqlite')}`);
    try {
      const out = await loadBatch(db, {
        pipeline: 'p',
        kind: 'create-run',
        endpoint: 'POST /api/scrapers/create-and-run',
        raw: body,
        data: createAndRunResponseSchema.parse(parseJson(body)),
      });
      expect(out.changedByTable['scrapers']).toBe(1);
      expect(out.warnings).toEqual([
        'scrapers.created_at: "last tuesday" is not an ISO 8601 timestamp with a zone; stored NULL (raw_responses keeps the response as sent)',
      ]);
      if (db.dialect !== 'sqlite') throw new Error('a SQLite file was opened');
      const [row] = db.sqlite
        .prepare(`select created_at, updated_at, last_seen_at, loaded_at from scrapers`)
        .all() as Array<Record<string, unknown>>;
      expect(row).toMatchObject({ created_at: null, updated_at: '2022-11-20T11:54:52.000Z' });
      expect(row!['last_seen_at']).toBe(row!['loaded_at']);
      const [raw] = db.sqlite.prepare(`select body from raw_responses where id = ?`).all(out.loadId) as Array<{
        body: string;
      }>;
      expect(raw!.body).toBe(body);
    } finally {
      await db.close();
    }
  });
});
