// When docker-compose is not installed, test/integration/deploy/compose.test.ts must fail saying so and how to install it, not
// with a bare ENOENT (issue 10, defect 10). Runs that test file in a child vitest with DOCKER_COMPOSE_BIN
// pointing at a binary that does not exist.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/cli.js';

describe('compose tests without docker-compose', () => {
  it('fail with a message naming docker-compose and how to install it', () => {
    const missing = '/nonexistent/bin/docker-compose';
    const run = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/integration/deploy/compose.test.ts'],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: { ...process.env, DOCKER_COMPOSE_BIN: missing, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' },
        timeout: 120_000,
      },
    );
    const output = `${run.stdout}\n${run.stderr}`;
    // Failed, not skipped: a machine without docker-compose must not pass CI.
    expect(run.status, output).toBe(1);
    expect(output).not.toMatch(/skipped/);
    expect(output).toContain(`docker-compose is missing: '${missing}' was not found (from DOCKER_COMPOSE_BIN)`);
    expect(output).toContain('sudo apt-get install docker-compose');
    expect(output).not.toMatch(/spawnSync \S+ ENOENT/);
    // Every test that runs docker-compose fails that way; the one reading only the files still passes.
    const counts = /Tests\s+(\d+) failed \| 1 passed \((\d+)\)/.exec(output);
    expect(counts, output).not.toBeNull();
    expect(Number(counts![1]) + 1).toBe(Number(counts![2]));
    expect(Number(counts![1])).toBeGreaterThanOrEqual(5);
  });
});
