// `scrape-etl doctor`: what a run needs, checked one line each (ok, warn or fail, and the fix): Node and the SQLite
// native module, the Temporal CLI or TEMPORAL_ADDRESS, each destination reachable and writable, the scraping service
// reachable and the token accepted (one GET of one scraper), the webhooks' variables, the key file's mode and owner,
// free disk space in the data folder, and whether `up` runs. Starts nothing (no Temporal server, no database file).
// Exit 0 without a fail, 1 with one.
import type { Command } from '../../vendor/commander.js';
import { processSettings } from '../../settings/process.js';
import type { Env } from '../../settings/settings.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  check: string;
  status: CheckStatus;
  detail: string;
  fix?: string;
}

/** Node's oldest version this package supports (package.json engines). */
const NODE_MIN: [number, number] = [20, 3];
/** Below this free space in the data folder a warning, below FAIL_BYTES a failure. */
const WARN_BYTES = 1024 ** 3;
const FAIL_BYTES = 100 * 1024 ** 2;

function check(name: string, status: CheckStatus, detail: string, fix?: string): DoctorCheck {
  return { check: name, status, detail, ...(fix !== undefined ? { fix } : {}) };
}

const firstLine = (err: unknown): string => ((err as Error).message ?? String(err)).split('\n')[0]!;

function nodeCheck(): DoctorCheck {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const ok = major > NODE_MIN[0] || (major === NODE_MIN[0] && minor >= NODE_MIN[1]);
  return ok
    ? check('node', 'ok', `Node ${process.versions.node}`)
    : check(
        'node',
        'fail',
        `Node ${process.versions.node} is older than ${NODE_MIN.join('.')}`,
        `install Node ${NODE_MIN.join('.')} or later`,
      );
}

async function sqliteCheck(): Promise<DoctorCheck> {
  try {
    const { default: Sqlite } = await import('better-sqlite3');
    const db = new Sqlite(':memory:');
    const v = db.prepare('SELECT sqlite_version() AS v').get() as { v: string };
    db.close();
    return check('sqlite native module', 'ok', `better-sqlite3 loads (SQLite ${v.v})`);
  } catch (err) {
    return check(
      'sqlite native module',
      'fail',
      `better-sqlite3 does not load: ${firstLine(err)}`,
      'npm rebuild better-sqlite3 (building it needs python3, make and a C++ compiler when no prebuilt binary can be downloaded)',
    );
  }
}

async function temporalCheck(): Promise<DoctorCheck> {
  const { temporalSettings } = await import('../../temporal/settings.js');
  let settings: ReturnType<typeof temporalSettings>;
  try {
    settings = temporalSettings();
  } catch (err) {
    return check('temporal', 'fail', firstLine(err), 'fix the Temporal setting named');
  }
  if (settings.address !== undefined) {
    const [host, portText] = [
      settings.address.slice(0, settings.address.lastIndexOf(':')),
      settings.address.slice(settings.address.lastIndexOf(':') + 1),
    ];
    const net = await import('node:net');
    const answered = await new Promise<string | undefined>((resolve) => {
      const socket = net.connect({ host: host.replace(/^\[|\]$/g, ''), port: Number(portText) });
      const done = (reason: string | undefined) => {
        socket.destroy();
        resolve(reason);
      };
      socket.setTimeout(5000, () => done('no answer within 5 s'));
      socket.once('connect', () => done(undefined));
      socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
    });
    if (answered !== undefined) {
      return check(
        'temporal',
        'fail',
        `TEMPORAL_ADDRESS ${settings.address} does not answer (${answered})`,
        'start that Temporal server, or fix TEMPORAL_ADDRESS (unset: the embedded dev server)',
      );
    }
    // The port answers: a gRPC connection with the TLS and API key settings says whether Temporal itself does (a
    // bare Connection: no client, so no payload codec and no key file is involved in this check).
    const { Connection } = await import('@temporalio/client');
    const { temporalConnectionSecurity } = await import('../../temporal/settings.js');
    try {
      const connection = await Connection.connect({
        address: settings.address,
        connectTimeout: '10s',
        ...temporalConnectionSecurity(settings),
      });
      await connection.close();
    } catch (err) {
      return check(
        'temporal',
        'fail',
        `TEMPORAL_ADDRESS ${settings.address} accepts connections, but not Temporal's: ${firstLine(err)}`,
        'check TEMPORAL_ADDRESS and the TEMPORAL_TLS_* / TEMPORAL_API_KEY settings (docs/production.md)',
      );
    }
    return check('temporal', 'ok', `TEMPORAL_ADDRESS ${settings.address} answers (namespace ${settings.namespace})`);
  }
  const { locateTemporalCli, describeSource } = await import('../../temporal/cli-binary.js');
  try {
    const cli = await locateTemporalCli({ obtain: false });
    return check('temporal', 'ok', `embedded dev server: Temporal CLI ${cli.path} (${describeSource(cli.source)})`);
  } catch {
    return check(
      'temporal',
      'warn',
      'embedded dev server: no Temporal CLI yet (TEMPORAL_CLI_PATH unset, none on PATH or cached); the first command that needs it downloads one',
      'nothing, with internet (or python3 with pip, or go); else set TEMPORAL_CLI_PATH to a temporal binary',
    );
  }
}

/** The destinations to check: each project pipeline's, else DATABASE_URL (the project's destination) or the default. */
async function destinationChecks(
  files: Array<{ file: string; spec?: { name: string; destination: { database: string } }; error?: string }>,
): Promise<DoctorCheck[]> {
  const { probeDatabase } = await import('../../destinations/open.js');
  const { destinationKey, redactDatabaseUrl } = await import('../../db/model/url.js');
  const { defaultDatabaseUrl } = await import('../resolve-pipeline.js');
  const urls = new Map<string, { url: string; pipelines: string[] }>();
  for (const f of files) {
    if (!f.spec) continue;
    const key = destinationKey(f.spec.destination.database);
    const entry = urls.get(key) ?? { url: f.spec.destination.database, pipelines: [] };
    entry.pipelines.push(f.spec.name);
    urls.set(key, entry);
  }
  if (urls.size === 0) urls.set('default', { url: defaultDatabaseUrl(), pipelines: [] });
  const out: DoctorCheck[] = [];
  for (const { url, pipelines } of urls.values()) {
    const name = `destination ${redactDatabaseUrl(url)}`;
    const of = pipelines.length > 0 ? ` (${pipelines.join(', ')})` : '';
    try {
      await probeDatabase(url, { timeoutMs: 5000 });
      out.push(check(name, 'ok', `${redactDatabaseUrl(url)} is reachable and writable${of}`));
    } catch (err) {
      out.push(
        check(
          name,
          'fail',
          `${firstLine(err)}${of}`,
          "fix the pipeline's destination.database (or DATABASE_URL, the project's destination), or the database it names",
        ),
      );
    }
  }
  return out;
}

async function serviceCheck(env: Env): Promise<DoctorCheck> {
  const base = env['SCRAPER_BASE_URL']?.trim();
  const token = env['SCRAPER_API_TOKEN']?.trim();
  if (!base || !token) {
    const missing = [!base ? 'SCRAPER_BASE_URL' : undefined, !token ? 'SCRAPER_API_TOKEN' : undefined]
      .filter(Boolean)
      .join(' and ');
    return check(
      'scraping service',
      'warn',
      `${missing} not set: runs cannot reach the service (demo needs neither)`,
      `export ${missing} (the token is in the API Tokens section of your console profile)`,
    );
  }
  const { ScraperClient } = await import('../../client/client.js');
  const { ApiUnauthorizedError, ApiNetworkError, ApiTimeoutError, ApiConfigError } =
    await import('../../client/errors.js');
  let client: InstanceType<typeof ScraperClient>;
  try {
    client = new ScraperClient({ env, timeoutMs: 10_000, retry: { maxAttempts: 1 } });
  } catch (err) {
    return check(
      'scraping service',
      'fail',
      firstLine(err),
      err instanceof ApiConfigError ? 'fix the variable named' : undefined,
    );
  }
  try {
    // The cheapest authenticated call: one scraper of the list (spec, endpoint 7); it costs no tokens.
    await client.listScrapers({ page: 1, per_page: 1 });
    return check('scraping service', 'ok', `${client.baseUrl} answers and accepts the token (GET /api/scrapers)`);
  } catch (err) {
    if (err instanceof ApiUnauthorizedError) {
      return check(
        'scraping service',
        'fail',
        `${client.baseUrl} rejected the token (401)`,
        'set SCRAPER_API_TOKEN to a valid token (copy it from the API Tokens section of your console profile)',
      );
    }
    if (err instanceof ApiNetworkError || err instanceof ApiTimeoutError) {
      const code = err instanceof ApiNetworkError && err.code ? err.code : 'no answer';
      return check(
        'scraping service',
        'fail',
        `${client.baseUrl} (SCRAPER_BASE_URL) is unreachable (${code})`,
        "fix SCRAPER_BASE_URL (the service's address), or check the network to it",
      );
    }
    return check(
      'scraping service',
      'fail',
      `${client.baseUrl} (SCRAPER_BASE_URL): ${firstLine(err)}`,
      "check that SCRAPER_BASE_URL is the scraping service's address",
    );
  } finally {
    await client.close();
  }
}

/** Every `${VAR}` of the pipelines' webhook URLs set, and SCRAPE_ETL_NOTIFY_URL an http(s) URL when set. */
async function webhookCheck(
  files: Array<{ file: string; spec?: { notify?: { webhooks: Array<{ url: string }> } } }>,
  env: Env,
): Promise<DoctorCheck> {
  const { interpolate } = await import('../../pipelines/env.js');
  const path = await import('node:path');
  const problems: string[] = [];
  let hooks = 0;
  for (const f of files) {
    (f.spec?.notify?.webhooks ?? []).forEach((w, i) => {
      hooks++;
      const { missing } = interpolate(w.url, env);
      for (const name of missing)
        problems.push(
          `${name} is not set (${path.relative(process.cwd(), f.file) || f.file} notify.webhooks[${i}].url)`,
        );
    });
  }
  const fallback = env['SCRAPE_ETL_NOTIFY_URL']?.trim();
  if (fallback) {
    hooks++;
    if (!/^https?:\/\/[^\s]+$/i.test(fallback)) problems.push('SCRAPE_ETL_NOTIFY_URL is not an http(s) URL');
  }
  if (problems.length > 0)
    return check(
      'webhooks',
      'fail',
      problems.join('; '),
      'export the variables named in the environment of the workers (up, or run on the embedded server)',
    );
  if (hooks === 0)
    return check(
      'webhooks',
      'warn',
      'no webhooks: no pipeline has notify.webhooks and SCRAPE_ETL_NOTIFY_URL is unset, so a failed run is seen only in status',
      'add notify.webhooks to the pipelines, or set SCRAPE_ETL_NOTIFY_URL (docs/alerts.md)',
    );
  return check('webhooks', 'ok', `${hooks} webhook${hooks === 1 ? '' : 's'}, every variable set`);
}

async function keyFileCheck(): Promise<DoctorCheck> {
  const fs = await import('node:fs');
  const { secretKeyFile } = await import('../../lib/secret-key.js');
  const file = secretKeyFile();
  let st: import('node:fs').Stats;
  try {
    st = fs.statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      return check('key file', 'ok', `${file} does not exist yet; the first run creates it (0600)`);
    return check('key file', 'fail', `${file}: ${firstLine(err)}`, `make ${file} readable by you`);
  }
  if (!st.isFile())
    return check(
      'key file',
      'fail',
      `${file} is not a regular file`,
      `remove it (a new key is created) or restore the key file there`,
    );
  const mode = (st.mode & 0o777).toString(8);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    return check(
      'key file',
      'fail',
      `${file} belongs to uid ${st.uid}, not to you (uid ${process.getuid()})`,
      `chown ${process.getuid()} ${file}`,
    );
  }
  if ((st.mode & 0o077) !== 0)
    return check('key file', 'fail', `${file} can be read by other users (mode ${mode})`, `chmod 600 ${file}`);
  return check('key file', 'ok', `${file} is yours alone (mode ${mode})`);
}

async function diskCheck(dataDir: string): Promise<DoctorCheck> {
  const fs = await import('node:fs');
  const path = await import('node:path');
  // The data folder, or the nearest folder above it that exists (it is created on first use).
  let dir = dataDir;
  while (!fs.existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  try {
    const s = await fs.promises.statfs(dir);
    const free = s.bavail * s.bsize;
    const text = `${(free / 1024 ** 3).toFixed(1)} GiB free in ${dir}`;
    if (free < FAIL_BYTES)
      return check('disk space', 'fail', text, 'free space there, or point SCRAPE_ETL_DATA_DIR (data_dir) elsewhere');
    if (free < WARN_BYTES)
      return check('disk space', 'warn', text, 'free space there: databases, exports and the Temporal server grow');
    return check('disk space', 'ok', text);
  } catch (err) {
    return check('disk space', 'warn', `${dir}: ${firstLine(err)}`);
  }
}

async function upCheck(dataDir: string, tool: string): Promise<DoctorCheck> {
  const { liveUp } = await import('../up/paths.js');
  const up = liveUp(dataDir);
  if (up)
    return check(
      'up',
      'ok',
      `up runs (pid ${up.pid} since ${up.startedAt}, ${up.workers} worker${up.workers === 1 ? '' : 's'} on ${up.address})`,
    );
  return check(
    'up',
    'warn',
    `up is not running for ${dataDir}: schedules fire only while it runs, and run starts a worker of its own`,
    `${tool} up --detach`,
  );
}

export function register(program: Command): void {
  program
    .command('doctor')
    .description(
      'check what runs need, one line each with the fix: Node, SQLite module, Temporal, destinations, the service and token, webhooks, key file, disk, up',
    )
    .option('--json', 'one JSON object per check: check, status (ok, warn, fail), detail, fix')
    .action(async (flags: { json?: boolean }) => {
      const { currentProject } = await import('../project.js');
      const { projectPipelines } = await import('../resolve-pipeline.js');
      const { loadPipelineFile } = await import('../../pipelines/loader.js');
      const { temporalSettings } = await import('../../temporal/settings.js');
      const { toolCommand } = await import('../next-steps.js');
      const path = await import('node:path');
      const project = await currentProject();
      const files: Array<{ file: string; spec?: Awaited<ReturnType<typeof loadPipelineFile>>; error?: string }> = [];
      for (const f of project ? await projectPipelines(project) : []) {
        try {
          files.push({ file: f.file, spec: await loadPipelineFile(f.file) });
        } catch (err) {
          files.push({ file: f.file, error: firstLine(err) });
        }
      }
      let dataDir: string;
      try {
        dataDir = temporalSettings().dataDir;
      } catch {
        dataDir = path.resolve(processSettings().dataDir);
      }
      const tool = toolCommand();
      // A check that throws is its own fail line: one broken part never hides the others' answers.
      const guarded = async (name: string, run: () => Promise<DoctorCheck | DoctorCheck[]>): Promise<DoctorCheck[]> => {
        try {
          const r = await run();
          return Array.isArray(r) ? r : [r];
        } catch (err) {
          return [check(name, 'fail', firstLine(err))];
        }
      };
      const checks: DoctorCheck[] = [
        nodeCheck(),
        ...(await guarded('sqlite native module', sqliteCheck)),
        ...(await guarded('temporal', temporalCheck)),
      ];
      for (const f of files.filter((x) => x.error !== undefined)) {
        checks.push(
          check(
            `pipeline ${path.relative(process.cwd(), f.file) || f.file}`,
            'fail',
            f.error!,
            `${tool} validate ${path.relative(process.cwd(), f.file) || f.file}`,
          ),
        );
      }
      checks.push(...(await guarded('destination', () => destinationChecks(files))));
      checks.push(
        ...(await guarded('scraping service', () => serviceCheck(processSettings().env))),
        ...(await guarded('webhooks', () => webhookCheck(files, processSettings().env))),
        ...(await guarded('key file', keyFileCheck)),
        ...(await guarded('disk space', () => diskCheck(dataDir))),
        ...(await guarded('up', () => upCheck(dataDir, tool))),
      );
      const failed = checks.filter((c) => c.status === 'fail').length;
      const warned = checks.filter((c) => c.status === 'warn').length;
      if (flags.json) {
        for (const c of checks) process.stdout.write(`${JSON.stringify(c)}\n`);
      } else {
        for (const c of checks)
          process.stdout.write(`${c.status.padEnd(4)}  ${c.check}: ${c.detail}${c.fix ? `; fix: ${c.fix}` : ''}\n`);
        process.stdout.write(
          `${failed === 0 ? 'no failures' : `${failed} failed`}${warned > 0 ? `, ${warned} warning${warned === 1 ? '' : 's'}` : ''}\n`,
        );
      }
      if (failed > 0) process.exitCode = 1;
    });
}
