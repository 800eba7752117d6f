// `scrape-etl up --print-systemd`: a systemd unit that runs `up` in the foreground (systemd supervises it; no
// --detach), with the absolute paths of this node and this scrape-etl, this working directory, and secrets read
// from an EnvironmentFile the unit names but never holds.
import path from 'node:path';

export interface SystemdUnitOptions {
  node: string;
  bin: string;
  cwd: string;
  /** Options for `up` itself (e.g. --workers 2 --metrics-port 9464), already split. */
  upArgs: string[];
  envFile: string;
  user?: string;
  dataDir?: string;
  /** The key file the commands that start runs read (lib/secret-key.ts): the unit's workers must read the same one. */
  keyFile?: string;
}

/** systemd's own quoting for a word of ExecStart=: double quotes around words with space or specials. */
function quoteWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `"${word.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function systemdUnit(o: SystemdUnitOptions): string {
  for (const [what, p] of [
    ['node', o.node],
    ['scrape-etl', o.bin],
    ['working directory', o.cwd],
    ['EnvironmentFile', o.envFile],
  ] as const) {
    if (!path.isAbsolute(p)) throw new Error(`the systemd unit needs an absolute path for the ${what}, got '${p}'`);
    if (/[\n\r]/.test(p)) throw new Error(`the ${what} path holds a line break: ${JSON.stringify(p)}`);
  }
  const exec = [o.node, o.bin, 'up', ...o.upArgs].map(quoteWord).join(' ');
  return [
    '# scrape-etl: the embedded Temporal server (or TEMPORAL_ADDRESS from the EnvironmentFile), the pipeline workers',
    '# and the metrics endpoint, in one supervised process. Install:',
    `#   scrape-etl up --print-systemd | sudo tee /etc/systemd/system/scrape-etl.service`,
    `#   printf 'SCRAPER_API_TOKEN=...\\nSCRAPER_BASE_URL=https://...\\n' | sudo tee ${o.envFile}; sudo chmod 600 ${o.envFile}`,
    '#   sudo systemctl daemon-reload && sudo systemctl enable --now scrape-etl && journalctl -u scrape-etl -f',
    '[Unit]',
    'Description=scrape-etl (Temporal workers for pipelines and their schedules)',
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${exec}`,
    `WorkingDirectory=${o.cwd}`,
    // The leading '-' is not used: a missing token file must stop the start, not run without a token.
    `EnvironmentFile=${o.envFile}`,
    ...(o.dataDir ? [`Environment=SCRAPE_ETL_DATA_DIR=${quoteWord(o.dataDir)}`] : []),
    // Pinned, so the workers decrypt and accept what `scrape-etl run` from this shell seals (docs/security.md).
    ...(o.keyFile ? [`Environment=SCRAPE_ETL_KEY_FILE=${quoteWord(o.keyFile)}`] : []),
    ...(o.user ? [`User=${o.user}`] : []),
    'Restart=on-failure',
    // up ends with 143 on SIGTERM (130 on SIGINT), as every command ended by a signal: a clean stop, not a failure.
    'SuccessExitStatus=130 143',
    'RestartSec=5',
    // SIGTERM to up alone: it drains its workers and stops the embedded server it runs itself (its own process group).
    'KillSignal=SIGTERM',
    'KillMode=mixed',
    // The workers' shutdown grace (30 s by default) plus the embedded server's stop.
    'TimeoutStopSec=60',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}
