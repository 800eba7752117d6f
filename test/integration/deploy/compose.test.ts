// docker-compose.yml and the Dockerfile, checked without a Docker engine: the file is validated by
// docker-compose itself (`config -q`), every image is pinned, workers can scale, and the API token comes only
// from the caller's environment.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { glob } from 'tinyglobby';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../support/cli.js';
import { DOCKER_COMPOSE, requireDockerCompose } from '../../support/docker-compose.js';

const COMPOSE = join(REPO_ROOT, 'docker-compose.yml');

function compose(args: string[], env: NodeJS.ProcessEnv = {}, file = COMPOSE) {
  // Not skipped when docker-compose is absent: the test fails, saying what is missing and how to install it.
  requireDockerCompose();
  const clean = { ...process.env };
  delete clean['SCRAPER_API_TOKEN'];
  return spawnSync(DOCKER_COMPOSE, ['-f', file, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...clean, ...env },
  });
}

/** name:tag pinned to a real version: a tag present, not `latest`, and containing a digit. */
function pinned(image: string): boolean {
  const tag = /:([^/:@]+)$/.exec(image)?.[1];
  return tag !== undefined && tag !== 'latest' && /\d/.test(tag);
}

describe('docker-compose.yml', () => {
  it('is valid according to docker-compose config -q', () => {
    const res = compose(['config', '-q']);
    expect(res.error).toBeUndefined();
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
  });

  it('is checked for real: docker-compose rejects a broken copy', () => {
    const dir = mkdtempSync(join(tmpdir(), 'compose-'));
    try {
      const broken = join(dir, 'docker-compose.yml');
      writeFileSync(broken, readFileSync(COMPOSE, 'utf8').replace('stop_grace_period: 45s', 'stop_grace_periodd: 45s'));
      const res = compose(['config', '-q'], {}, broken);
      expect(res.status).not.toBe(0);
      expect(res.stderr).toMatch(/stop_grace_periodd/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pins every image to a version tag (never latest) and builds the worker from the Dockerfile', () => {
    const doc = parse(readFileSync(COMPOSE, 'utf8')) as {
      services: Record<
        string,
        {
          image?: string;
          build?: unknown;
          ports?: unknown;
          container_name?: unknown;
          command?: unknown;
          environment?: unknown;
        }
      >;
    };
    const services = Object.entries(doc.services);
    expect(services.map(([n]) => n).sort()).toEqual(['temporal', 'temporal-db', 'temporal-ui', 'warehouse', 'worker']);
    for (const [name, svc] of services) {
      if (name === 'worker') continue;
      expect(svc.image, name).toBeDefined();
      expect(pinned(svc.image!), `${name}: ${svc.image}`).toBe(true);
    }
    expect(doc.services['temporal']!.image).toMatch(/^temporalio\/auto-setup:\d+\.\d+\.\d+$/);
    expect(doc.services['temporal-ui']!.image).toMatch(/^temporalio\/ui:\d+\.\d+\.\d+$/);
    // The server the production-topology test builds and runs (test/integration/temporal/topology-postgres.test.ts) is the one deployed.
    const tested = readFileSync(join(REPO_ROOT, 'scripts', 'temporal-server.version'), 'utf8').trim();
    expect(doc.services['temporal']!.image).toBe(`temporalio/auto-setup:${tested}`);
    expect(doc.services['warehouse']!.image).toMatch(/^postgres:16\.\d+/);
    // Scaling needs no fixed container name and no published host port on the worker.
    expect(doc.services['worker']!.build).toBe('.');
    // The same command as on one machine; the compose Temporal is configured, so it starts no embedded server.
    expect(doc.services['worker']!.command).toEqual(['up']);
    expect(doc.services['worker']!.environment).toContain('TEMPORAL_ADDRESS=temporal:7233');
    expect(doc.services['worker']!.container_name).toBeUndefined();
    expect(doc.services['worker']!.ports).toBeUndefined();

    const froms = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8').match(/^FROM\s+\S+/gm) ?? [];
    expect(froms.length).toBeGreaterThan(0);
    for (const f of froms) expect(f).toMatch(/^FROM\s+node:20\.\d+\.\d+-bookworm-slim$/);
  });

  it('passes the API token through from the environment without writing it in the file', () => {
    const lines = readFileSync(COMPOSE, 'utf8')
      .split('\n')
      .filter((l) => !l.trimStart().startsWith('#'));
    expect(lines.filter((l) => l.includes('SCRAPER_API_TOKEN'))).toEqual(['      - SCRAPER_API_TOKEN']);
    const token = 'tok-from-env-3f9a';
    const out = compose(['config'], { SCRAPER_API_TOKEN: token, SCRAPER_BASE_URL: 'https://scraper.example' });
    expect(out.status).toBe(0);
    const worker = (parse(out.stdout) as { services: Record<string, { environment: Record<string, string | null> }> })
      .services['worker']!;
    expect(worker.environment).toMatchObject({
      SCRAPER_API_TOKEN: token,
      SCRAPER_BASE_URL: 'https://scraper.example',
      TEMPORAL_ADDRESS: 'temporal:7233',
      DATABASE_URL: expect.stringMatching(/^postgres:\/\/scrape_etl:[^@]+@warehouse:5432\/scrape_etl$/),
    });
    const without = parse(compose(['config']).stdout) as {
      services: Record<string, { environment: Record<string, string | null> }>;
    };
    expect(without.services['worker']!.environment['SCRAPER_API_TOKEN']).toBeNull();
  });

  it('gives every worker container and every `compose run` one key file, on a shared named volume (docs/security.md)', () => {
    const out = compose(['config']);
    expect(out.status).toBe(0);
    const doc = parse(out.stdout) as {
      services: Record<
        string,
        { environment: Record<string, string | null>; volumes?: Array<string | { source: string; target: string }> }
      >;
      volumes: Record<string, unknown>;
    };
    const worker = doc.services['worker']!;
    const keyFile = worker.environment['SCRAPE_ETL_KEY_FILE'];
    expect(keyFile).toMatch(/^\/app\/keys\/[^/]+$/);
    // docker-compose v1 prints mounts as `source:target:mode`, v2 as objects.
    const mounts = (worker.volumes ?? []).map((v) =>
      typeof v === 'string'
        ? { source: v.split(':')[0]!, target: v.split(':')[1]! }
        : { source: v.source, target: v.target },
    );
    const keyMount = mounts.find((m) => m.target === posix.dirname(keyFile!));
    // A named volume (not the container's own /app/data): each container would otherwise create its own key.
    expect(keyMount, JSON.stringify(mounts)).toBeDefined();
    expect(Object.keys(doc.volumes)).toContain(keyMount!.source);
    // The image makes the folder the node user's, so the volume it seeds is writable for the first worker.
    expect(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8')).toMatch(/chown -R node:node [^\n]*\/app\/keys/);
  });

  it('mounts the export folder of every example pipeline, at the path the worker resolves it to, from the same host folder', async () => {
    // Relative export dirs resolve in the worker's working directory: the runtime stage's WORKDIR.
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.split(/^FROM\s/m).at(-1)!;
    const workdir = /^WORKDIR\s+(\S+)$/m.exec(runtime)?.[1];
    expect(workdir).toBe('/app');
    expect(runtime).toMatch(/^USER node$/m);

    const examples = await glob('pipelines/examples/*.yaml', { cwd: REPO_ROOT, absolute: true });
    expect(examples.length).toBeGreaterThan(0);
    const dirs = new Set<string>();
    for (const file of examples) {
      const doc = parse(readFileSync(file, 'utf8')) as { exports?: Array<{ dir: string }> };
      for (const e of doc.exports ?? []) dirs.add(e.dir);
    }
    expect([...dirs]).toEqual(['./data/exports']);

    // docker-compose's own resolution of the mounts: host paths made absolute against the compose file's folder.
    const out = compose(['config']);
    expect(out.status).toBe(0);
    const worker = (
      parse(out.stdout) as {
        services: Record<string, { volumes?: Array<string | { type?: string; source: string; target: string }> }>;
      }
    ).services['worker']!;
    const binds = (worker.volumes ?? []).map((v) => {
      if (typeof v !== 'string') return { source: v.source, target: v.target };
      const [source, target] = v.split(':');
      return { source: source!, target: target! };
    });
    for (const dir of dirs) {
      const target = posix.resolve(workdir!, dir);
      expect(binds, `a mount for ${dir} (${target} in the container)`).toContainEqual({
        source: resolve(REPO_ROOT, dir),
        target,
      });
    }
    // The host folder's owner is documented: the container's user is uid 1000.
    for (const doc of ['docs/exports.md', 'docs/csv-and-compose.md']) {
      expect(readFileSync(join(REPO_ROOT, doc), 'utf8'), doc).toMatch(/sudo chown 1000:1000 data\/exports/);
    }
  });

  it('the worker image runs the compiled dist/ with production dependencies only: no TypeScript loader at run time', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['better-sqlite3', '@temporalio/worker']));
    expect(Object.keys(pkg.dependencies)).not.toContain('tsx');
    expect(Object.keys(pkg.dependencies)).not.toContain('typescript');
    const bin = readFileSync(join(REPO_ROOT, 'bin', 'scrape-etl.js'), 'utf8');
    expect(bin).toMatch(/\.\.\/dist\/cli\/main\.js/);
    expect(bin).not.toMatch(/tsx/);
    // Two stages: the build stage compiles and prunes dev dependencies, the runtime stage copies the result.
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const stages = dockerfile.split(/^FROM\s/m).slice(1);
    expect(stages).toHaveLength(2);
    expect(stages[0]).toMatch(/npm ci\b/);
    expect(stages[0]).toMatch(/npm prune --omit=dev/);
    expect(stages[1]).toMatch(/COPY --from=build \/app\/dist \.\/dist/);
    expect(stages[1]).not.toMatch(/npm (ci|install)|tsx/);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "bin\/scrape-etl\.js"\]$/m);
    const ignore = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignore).toEqual(expect.arrayContaining(['node_modules', 'data', '.git', '.env']));
    requireDockerCompose();
    expect(execFileSync(DOCKER_COMPOSE, ['version', '--short'], { encoding: 'utf8' })).toMatch(/\d/);
  });
});
