// The fast tier's time-skipping server (test/support/workflow-env.ts): a start slower than the SDK's fixed 5 s (a
// loaded machine) is tried again instead of failing the whole test file, and a server that never answers still
// fails, after TEST_SERVER_STARTS tries. The slow server is the real one behind a wrapper that waits first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTimeSkipping, temporalTestServerPath, TEST_SERVER_STARTS } from '../../support/workflow-env.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-server-start-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A server executable that counts its starts in `dir/<name>.starts` and waits 7 s on the first `slow` of them. */
function wrapper(name: string, slow: number): { path: string; starts(): number } {
  const counter = path.join(dir, `${name}.starts`);
  const file = path.join(dir, `${name}.sh`);
  fs.writeFileSync(
    file,
    `#!/bin/bash\necho x >> '${counter}'\nif [ "$(wc -l < '${counter}')" -le ${slow} ]; then sleep 7; exit 1; fi\nexec '${temporalTestServerPath()}' "$@"\n`,
    { mode: 0o755 },
  );
  return {
    path: file,
    starts: () => (fs.existsSync(counter) ? fs.readFileSync(counter, 'utf8').split('\n').filter(Boolean).length : 0),
  };
}

describe('time-skipping test server start', () => {
  it('a first start slower than 5 s is tried again, and the environment works', async () => {
    const server = wrapper('once-slow', 1);
    const env = await startTimeSkipping(server.path);
    try {
      expect(server.starts()).toBe(2);
      expect(env.supportsTimeSkipping).toBe(true);
    } finally {
      await env.teardown();
    }
  }, 60_000);

  it("a server that never answers fails after the last try, with the SDK's reason", async () => {
    const server = wrapper('never', 99);
    await expect(startTimeSkipping(server.path)).rejects.toThrow(/did not start within/);
    expect(server.starts()).toBe(TEST_SERVER_STARTS);
  }, 90_000);
});
