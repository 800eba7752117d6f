import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../cli/logger.js';

const TOKEN = 'tok-0123456789-secret';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { lines, destination };
}

describe('cli logger', () => {
  it('is quiet by default and redacts the token by path and by value, message included', () => {
    const { lines, destination } = capture();
    const env = { SCRAPER_API_TOKEN: TOKEN };
    const quiet = createLogger({ env, destination });
    quiet.info('not shown');
    expect(lines).toEqual([]);

    const log = createLogger({ verbose: true, env, destination });
    log.debug({ token: 'any-value', headers: { authorization: `Bearer ${TOKEN}` } }, 'by path');
    log.warn({ url: `https://x.test/?t=${TOKEN}`, nested: [{ deep: `a ${TOKEN} b` }] }, `by value ${TOKEN}`);
    log.error({ err: new Error(`failed with ${TOKEN}`) }, 'error object');
    const text = lines.join('');
    expect(lines).toHaveLength(3);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('any-value');
    const [byPath, byValue, errLine] = lines.map((l) => JSON.parse(l) as Record<string, any>);
    expect(byPath!['token']).toBe('[redacted]');
    expect(byPath!['headers'].authorization).toBe('[redacted]');
    expect(byValue!['url']).toBe('https://x.test/?t=[redacted]');
    expect(byValue!['nested'][0].deep).toBe('a [redacted] b');
    expect(byValue!['msg']).toBe('by value [redacted]');
    expect(errLine!['err'].message).toBe('failed with [redacted]');
  });
});
