// A real headless Chromium for the console's browser tests: Debian's `chromium` package (.ci/run installs it),
// driven by playwright-core through its executable path. Missing Chromium fails the test with how to install it;
// it is never skipped.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export function chromiumPath(): string {
  const fromEnv = process.env['CHROMIUM_PATH']?.trim();
  if (fromEnv) return fromEnv;
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const found = execFileSync('which', [name], { encoding: 'utf8' }).trim();
      if (found) return found;
    } catch {
      // not on PATH under this name
    }
  }
  if (fs.existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  throw new Error(
    "no Chromium found for the console's browser tests: install Debian's package (`apt-get install chromium`, as .ci/run does) or set CHROMIUM_PATH",
  );
}

/** `extraArgs`: more Chromium switches (e.g. `--host-resolver-rules` to reach loopback through another name). */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', ...extraArgs],
  });
}

/** Where screenshots of failed browser tests go (kept as CI artefacts). */
export const ARTIFACTS = path.resolve(process.cwd(), 'test-artifacts', 'console');

/** Runs `fn`; on failure saves a screenshot of the page (named for the test) and rethrows. */
export async function withScreenshotOnFailure<T>(page: Page, name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, `${name.replace(/[^A-Za-z0-9_-]+/g, '_')}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => {});
    throw Object.assign(err as Error, { message: `${(err as Error).message}\n(screenshot: ${file})` });
  }
}
