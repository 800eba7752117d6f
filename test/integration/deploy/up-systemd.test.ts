// `scrape-etl up --print-systemd`: the unit it prints is checked by systemd's own verifier (systemd-analyze verify,
// Debian's systemd package), and the verifier is shown to reject a broken copy, so the check can fail.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../../support/cli.js';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-systemd-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function verify(unitFile: string): { status: number | null; output: string } {
  const r = spawnSync('systemd-analyze', ['verify', unitFile], { encoding: 'utf8' });
  if (r.error)
    throw new Error(`systemd-analyze is needed for this test (Debian: apt-get install systemd): ${r.error.message}`);
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('scrape-etl up --print-systemd', () => {
  it('prints a unit systemd-analyze verify accepts: absolute node and bin, working directory, restart on failure, SIGTERM, secrets from an EnvironmentFile', async () => {
    const envFile = path.join(dir, 'scrape-etl.env');
    const dataDir = path.join(dir, 'state');
    const r = await runCli(
      ['up', '--print-systemd', '--workers', '2', '--metrics-port', '9464', '--environment-file', envFile],
      {
        cwd: dir,
        // No SCRAPE_ETL_KEY_FILE (the test setup sets one): the key file is then the data folder's.
        env: {
          SCRAPE_ETL_DATA_DIR: dataDir,
          SCRAPE_ETL_KEY_FILE: '',
          SCRAPER_API_TOKEN: 'must-not-appear-in-the-unit',
        },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const unit = r.stdout;
    expect(unit).not.toContain('must-not-appear-in-the-unit');
    const lines = unit.split('\n');
    expect(lines).toContain(`ExecStart=${process.execPath} ${fs.realpathSync(CLI)} up --workers 2 --metrics-port 9464`);
    expect(lines).toContain(`WorkingDirectory=${fs.realpathSync(dir)}`);
    expect(lines).toContain(`EnvironmentFile=${envFile}`);
    expect(lines).toContain(`Environment=SCRAPE_ETL_DATA_DIR=${dataDir}`);
    // The unit's workers read the key file `run` from this shell seals with (docs/security.md).
    expect(lines).toContain(`Environment=SCRAPE_ETL_KEY_FILE=${path.join(dataDir, 'secret.key')}`);
    expect(lines).toContain('Restart=on-failure');
    expect(lines).toContain('KillSignal=SIGTERM');
    // up exits 143 on SIGTERM (README, "Exit codes"): a clean stop for systemd.
    expect(lines).toContain('SuccessExitStatus=130 143');
    const unitFile = path.join(dir, 'scrape-etl.service');
    fs.writeFileSync(unitFile, unit);
    const ok = verify(unitFile);
    expect(ok.status, ok.output).toBe(0);
    expect(ok.output).not.toMatch(/scrape-etl\.service/);

    // The verifier is real: a relative ExecStart is refused.
    const broken = path.join(dir, 'broken.service');
    fs.writeFileSync(broken, unit.replace(/^ExecStart=\S+/m, 'ExecStart=node-not-absolute'));
    const bad = verify(broken);
    expect(bad.status).not.toBe(0);
    expect(bad.output).toMatch(/ExecStart|not absolute|executable/i);
  });
});
