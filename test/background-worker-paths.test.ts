// Where the background worker's sockets go and which ones a new worker sweeps (cli/background/settings.ts): real
// files, in the data folder and in the /tmp fallback that a data folder too deep for a Unix socket's path gets.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backgroundWorkerPaths } from '../cli/background/settings.js';

const made: string[] = [];
afterAll(() => {
  for (const f of made) fs.rmSync(f, { recursive: true, force: true });
});

function dataFolder(depth: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bw-paths-'));
  made.push(dir);
  const data = path.join(dir, 'd'.repeat(depth), 'data');
  fs.mkdirSync(path.join(data, 'temporal'), { recursive: true });
  return data;
}

const KEYS = ['0123456789abcdef', 'fedcba9876543210'];

describe('background worker sockets', () => {
  for (const [place, depth] of [
    ['beside the data folder', 1],
    ['in the /tmp fallback of a deep data folder', 120],
  ] as const) {
    it(`lists the sockets of this data folder's workers of any key, and only those: ${place}`, () => {
      const paths = backgroundWorkerPaths(dataFolder(depth));
      const other = backgroundWorkerPaths(dataFolder(depth));
      const sockets = KEYS.map((k) => paths.socket(k));
      for (const s of sockets) expect(Buffer.byteLength(s)).toBeLessThanOrEqual(107);
      if (depth > 100) expect(path.dirname(sockets[0]!)).not.toBe(paths.dir);
      else expect(path.dirname(sockets[0]!)).toBe(paths.dir);
      made.push(...sockets, other.socket(KEYS[0]!));
      // Stand-ins for the socket files killed workers leave; plus another folder's, and names that are not sockets.
      for (const f of [...sockets, other.socket(KEYS[0]!), `${sockets[0]}.bak`, sockets[0]!.replace(KEYS[0]!, 'not-a-key-at-all')]) {
        fs.writeFileSync(f, '');
        made.push(f);
      }
      expect(paths.sockets().sort()).toEqual([...sockets].sort());
      expect(other.sockets()).toEqual([other.socket(KEYS[0]!)]);
    });
  }
});
