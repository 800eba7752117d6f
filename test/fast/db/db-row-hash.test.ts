// Row hashes and raw body digests are stored, and a re-load compares them: the way they are computed may change
// (db/model/hash.ts), the digests may not, or every stored row would look changed to the next load.
import { describe, expect, it } from 'vitest';
import { checkRow } from '../../../db/store/load-rows.js';
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

  it('digests of UTF-8 text', () => {
    expect(hexDigest('sha1', 'é\u{1F600}')).toBe('9c286deb5d7549eafd1dcb2b58e0b573bc1b4a97');
    expect(hexDigest('sha256', 'é\u{1F600}')).toBe('1184d1f608158eea09d297565575892231550c403aaa913008d867a97cfd5c76');
  });
});
