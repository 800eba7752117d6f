// The docker-compose binary the compose tests run, and a plain statement of what to do when it is absent:
// without it every compose test failed with a bare "spawnSync docker-compose ENOENT".
import { spawnSync } from 'node:child_process';

export const DOCKER_COMPOSE = process.env['DOCKER_COMPOSE_BIN'] ?? 'docker-compose';

/** Throws an error saying docker-compose is missing and how to install it; returns quietly when it runs. */
export function requireDockerCompose(): void {
  const probe = spawnSync(DOCKER_COMPOSE, ['version', '--short'], { encoding: 'utf8' });
  const code = (probe.error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'EACCES') {
    throw new Error(
      `docker-compose is missing: '${DOCKER_COMPOSE}' ${code === 'ENOENT' ? 'was not found' : 'is not executable'}` +
        `${process.env['DOCKER_COMPOSE_BIN'] ? ' (from DOCKER_COMPOSE_BIN)' : ' on PATH'}. These tests validate docker-compose.yml ` +
        'with docker-compose itself (no Docker engine needed). Install it: `sudo apt-get install docker-compose` on ' +
        'Debian/Ubuntu (what .ci/run does), or point DOCKER_COMPOSE_BIN at a docker-compose binary.',
    );
  }
  if (probe.error) throw probe.error;
}
