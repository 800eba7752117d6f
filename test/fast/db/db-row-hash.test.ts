// Row hashes and raw body digests are stored, and a re-load compares them: the way they are computed may change
// (db/model/hash.ts), the digests may not, or every stored row would look changed to the next load.
import { describe, expect, it } from 'vitest';
import { checkOpenRow, checkRow, completeRow } from '../../../db/store/load-rows.js';
import { OPEN_FIELDS, type Row } from '../../../db/model/flatten/values.js';
import { hexDigest } from '../../../db/model/hash.js';
import { TABLE_META } from '../../../db/model/tables.js';

describe('stored digests', () => {
  it('a row hash is the same as the rows already stored carry', () => {
    const row = {
      shop_id: 9_007_199_254_740_993n,
      userid: 42,
      name: 'Shöp \u{1F600}',
      username: '',
      place: null,
      vacation: true,
      is_official_shop: false,
      status: 1,
    };
    expect(checkRow(TABLE_META.marketplace_shops, row).hash).toBe('92b2632bb81c8f1e5620f32f1df3759e304a40e5');
  });

  it('a row hash with inferred values (by name, nulls left out) is the same as the rows already stored carry', () => {
    const meta = TABLE_META.marketplace_products;
    const row: Row = {
      shop_id: 500,
      item_id: 9_007_199_254_740_993n,
      title: 'Ti\u0000tle \u{1F600}',
      ctime_at: '2024-03-01T10:00:00+02:00',
      is_adult: false,
      rating_star: 4.5,
      [OPEN_FIELDS]: [['extra_b', 'x']],
    };
    const complete = (checked?: ReturnType<typeof checkOpenRow>) =>
      completeRow(
        meta,
        row,
        { pipeline: 'p', load_id: 7, loaded_at: '2026-01-01T00:00:00.000Z' },
        ['extra_a', 'extra_b', 'extra_c', 'extra_d'],
        [
          ['extra_b', 'x'],
          ['extra_c', 12345678901234567890n],
          ['extra_d', null],
        ],
        checked,
      );
    // Checked as it is written, and checked ahead (prepareBatch) with only the inferred values added in the write.
    for (const out of [complete(), complete(checkOpenRow(meta, row))]) {
      expect(out[meta.columns.indexOf('row_hash')]).toBe('befcdb2fa1d1a1215fa51bf318f5b4e1c067b66f');
      expect(out.slice(meta.columns.length)).toEqual([null, 'x', 12345678901234567890n, null]);
    }
  });

  it('digests of UTF-8 text', () => {
    expect(hexDigest('sha1', 'é\u{1F600}')).toBe('9c286deb5d7549eafd1dcb2b58e0b573bc1b4a97');
    expect(hexDigest('sha256', 'é\u{1F600}')).toBe('1184d1f608158eea09d297565575892231550c403aaa913008d867a97cfd5c76');
  });
});
