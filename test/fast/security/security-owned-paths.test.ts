// Own it or refuse it (issue 37): the data folder, the key file, the pid and state files and the embedded server's
// files must belong to the user running the command and be writable by nobody else. On real folders and files in
// a temp folder: each place that opens them refuses one another user owns or others can write, with one sentence
// naming it and the fix, and reads what is the user's alone. (A second OS user acting for real:
// test/integration/security/security-neighbours.test.ts.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertOwned, assertOwnedDataDir, NotOwnedError } from '../../../lib/owned-path.js';
import { secretKeys } from '../../../lib/secret-key.js';
import { wantedUmask } from '../../../lib/private-files.js';
import { liveUp } from '../../../cli/up/paths.js';
import { recallRun, rememberRun, runIdentity } from '../../../cli/run-state.js';
import { applyProject } from '../../../cli/project.js';
import { commandFailure } from '../../../cli/command-error.js';

const isRoot = process.getuid!() === 0;
/** A uid that is not ours: nobody's, given to a path we make (as root), else an existing path root owns. */
const OTHER_UID = 65534;
let root: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-owned-'));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** A folder another user owns (mode 0755: only ownership is wrong). */
function foreignDir(): string {
  if (!isRoot) return '/';
  const dir = path.join(root, 'foreign');
  fs.mkdirSync(dir, { mode: 0o755 });
  fs.chmodSync(dir, 0o755);
  fs.chownSync(dir, OTHER_UID, OTHER_UID);
  return dir;
}

function refusal(fn: () => unknown): { message: string; exitCode: number } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(NotOwnedError);
    const f = commandFailure(err);
    expect(f.message.trim().split('\n')).toHaveLength(1);
    return f;
  }
  throw new Error('not refused');
}

describe('the check (lib/owned-path.ts) on real folders and files', () => {
  it("passes a missing path and what is the user's alone; refuses world- and group-writable ones and one another user owns", () => {
    expect(() => assertOwnedDataDir(path.join(root, 'not-yet'))).not.toThrow();
    const mine = path.join(root, 'mine');
    fs.mkdirSync(mine);
    for (const mode of [0o700, 0o755, 0o750]) {
      fs.chmodSync(mine, mode);
      expect(() => assertOwnedDataDir(mine)).not.toThrow();
    }
    fs.chmodSync(mine, 0o777);
    const open = refusal(() => assertOwnedDataDir(mine));
    expect(open.message).toContain(`the data folder ${mine} can be written by every user (mode 777)`);
    expect(open.message).toContain(`chmod go-w ${mine}`);
    expect(open.exitCode).toBe(2);
    fs.chmodSync(mine, 0o770);
    expect(refusal(() => assertOwnedDataDir(mine)).message).toContain('can be written by its group (mode 770)');
    // Sticky (as /tmp) is still shared: refused.
    fs.chmodSync(mine, 0o1777);
    expect(refusal(() => assertOwnedDataDir(mine)).message).toContain('chmod go-w');

    const foreign = foreignDir();
    const owned = refusal(() => assertOwnedDataDir(foreign));
    expect(owned.message).toMatch(
      new RegExp(
        `the data folder ${foreign.replace(/[/.]/g, '\\$&')} belongs to another user \\(uid \\d+, you are \\d+\\)`,
      ),
    );
    expect(owned.message).toContain('use a folder you own');
    expect(owned.exitCode).toBe(2);

    const file = path.join(root, 'f');
    fs.writeFileSync(file, 'x', { mode: 0o600 });
    fs.chmodSync(file, 0o622);
    expect(refusal(() => assertOwned(file, { what: 'the secret key file' })).message).toContain(
      `the secret key file ${file} can be written by every user`,
    );
  });

  it('a symbolic link is judged by what it points to', () => {
    const link = path.join(root, 'link');
    fs.symlinkSync(foreignDir(), link);
    expect(refusal(() => assertOwnedDataDir(link)).message).toContain('belongs to another user');
  });
});

describe('every place that opens them refuses', () => {
  it('a world-writable shared data folder holding a key file of another user: the key, up and remembered runs', () => {
    const shared = path.join(root, 'shared');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o777);
    const key = path.join(shared, 'secret.key');
    fs.writeFileSync(key, Buffer.alloc(32, 7).toString('base64') + '\n', { mode: 0o600 });
    if (isRoot) fs.chownSync(key, OTHER_UID, OTHER_UID);

    expect(refusal(() => secretKeys(key)).message).toContain(
      `the folder of the secret key file ${shared} can be written by every user`,
    );
    expect(refusal(() => liveUp(shared)).message).toContain(`the data folder ${shared}`);
    const id = runIdentity({ name: 'p', destination: { database: 'sqlite:/x.sqlite' } }, path.join(root, 'p.yaml'));
    expect(refusal(() => recallRun(shared, id)).message).toContain(`the data folder ${shared}`);
    expect(
      refusal(() =>
        rememberRun(shared, id, {
          pipeline: 'p',
          runKey: 'k',
          workflowId: 'p--k',
          file: 'p.yaml',
          startedAt: new Date().toISOString(),
        }),
      ).message,
    ).toContain(`the data folder ${shared}`);

    // The folder made private, the key file still another user's: refused by name.
    fs.chmodSync(shared, 0o700);
    if (isRoot) {
      expect(refusal(() => secretKeys(key)).message).toContain(`the secret key file ${key} belongs to another user`);
    }
    // The user's own files in the user's own folder: read as before.
    fs.chownSync(key, process.getuid!(), process.getgid!());
    expect(secretKeys(key).id).toMatch(/^[0-9a-f]{16}$/);
    expect(liveUp(shared)).toBeUndefined();
  });

  it("a state file in the user's folder others can write is refused (up's, a remembered run; the server's: security-neighbours.test.ts)", () => {
    const data = path.join(root, 'data');
    fs.mkdirSync(path.join(data, 'temporal'), { recursive: true, mode: 0o700 });
    fs.mkdirSync(path.join(data, 'runs'), { recursive: true, mode: 0o700 });
    const up = path.join(data, 'up.json');
    fs.writeFileSync(up, '{}', { mode: 0o600 });
    fs.chmodSync(up, 0o646);
    expect(refusal(() => liveUp(data)).message).toContain(`scrape-etl up's file ${up} can be written by every user`);
    fs.chmodSync(path.join(data, 'runs'), 0o777);
    const id = runIdentity({ name: 'p', destination: { database: 'sqlite:/x.sqlite' } }, path.join(root, 'p.yaml'));
    expect(refusal(() => recallRun(data, id)).message).toContain(
      `the folder of remembered runs ${path.join(data, 'runs')}`,
    );
  });

  it("a project file's data_dir is named in the refusal", () => {
    const shared = path.join(root, 'shared-project-data');
    fs.mkdirSync(shared);
    fs.chmodSync(shared, 0o777);
    const projectFile = path.join(root, 'scrape-etl.yaml');
    const env: NodeJS.ProcessEnv = {};
    applyProject({ file: projectFile, root, pipelines: [], settings: { SCRAPE_ETL_DATA_DIR: shared } }, env);
    expect(refusal(() => liveUp(env['SCRAPE_ETL_DATA_DIR']!)).message).toContain(
      `the data folder ${shared} (data_dir in ${projectFile}) can be written by every user`,
    );
  });

  it('SCRAPE_ETL_UMASK may share reading, never writing', () => {
    expect(wantedUmask({ SCRAPE_ETL_UMASK: '002' })).toBe(0o022);
    expect(wantedUmask({ SCRAPE_ETL_UMASK: '027' })).toBe(0o027);
    expect(wantedUmask({})).toBe(0o077);
  });
});

describe('the key file in a sticky folder root owns (/tmp)', () => {
  it("is read when it is the user's alone, refused when another user made it there first", () => {
    const file = path.join(os.tmpdir(), `scrape-etl-owned-key-${process.pid}.key`);
    try {
      expect(secretKeys(file).id).toMatch(/^[0-9a-f]{16}$/);
      if (isRoot) {
        const planted = path.join(os.tmpdir(), `scrape-etl-planted-key-${process.pid}.key`);
        fs.writeFileSync(planted, Buffer.alloc(32, 9).toString('base64') + '\n', { mode: 0o600 });
        fs.chownSync(planted, OTHER_UID, OTHER_UID);
        try {
          expect(refusal(() => secretKeys(planted)).message).toContain(
            `the secret key file ${planted} belongs to another user`,
          );
        } finally {
          fs.rmSync(planted, { force: true });
        }
      }
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});
