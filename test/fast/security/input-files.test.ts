// Every file read as input goes through lib/input-file.ts (issue 37): the key file, `load`'s response files and
// `--from` lists, TLS files and the project file are refused at once when they are a FIFO, a device or a directory,
// and read only up to their limit, on real files, FIFOs and devices. (The pipeline file and `request.urls_file`,
// through the compiled `validate` and `run`: test/integration/pipelines/pipeline-input-files.test.ts.)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandInputs } from '../../../cli/load-inputs.js';
import { loadProject } from '../../../cli/project.js';
import { InputFileError, readInputFileSync, readInputText } from '../../../lib/input-file.js';
import { secretKeys } from '../../../lib/secret-key.js';
import { temporalConnectionSecurity } from '../../../temporal/settings.js';

let dir: string;
let fifo: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'input-files-fast-'));
  fifo = path.join(dir, 'pipe');
  execFileSync('mkfifo', ['-m', '600', fifo]);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the reader', () => {
  it('refuses a FIFO, devices and a directory before reading, naming what they are', async () => {
    expect(() => readInputFileSync(fifo, 'key')).toThrow(
      `${fifo} is a FIFO (named pipe), not a regular file; name a regular file`,
    );
    expect(() => readInputFileSync('/dev/zero', 'project')).toThrow(
      '/dev/zero is a character device, not a regular file',
    );
    await expect(readInputText('/dev/urandom', 'pipeline')).rejects.toThrow(
      '/dev/urandom is a character device, not a regular file',
    );
    await expect(readInputText(dir, 'pipeline')).rejects.toThrow(`${dir} is a directory, not a regular file`);
    await expect(readInputText(path.join(dir, 'missing'), 'pipeline')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads a regular file up to its limit, and not a byte past it', async () => {
    const file = path.join(dir, 'urls.txt');
    fs.writeFileSync(file, 'x'.repeat(4096));
    const env = { SCRAPE_ETL_MAX_URLS_FILE_BYTES: '4096' };
    expect(readInputFileSync(file, 'urls', env).length).toBe(4096);
    fs.appendFileSync(file, 'y');
    expect(() => readInputFileSync(file, 'urls', env)).toThrow(
      /is 4097 bytes, over the 4096 bytes a URL list may have \(SCRAPE_ETL_MAX_URLS_FILE_BYTES\)/,
    );
    // A file whose size says nothing of its content (procfs reports 0) is still read only up to the limit.
    const err = (() => {
      try {
        readInputFileSync('/proc/self/maps', 'key');
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(InputFileError);
    expect((err as Error).message).toMatch(/is more than 4096 bytes, over the 4096 bytes a secret key file may have/);
  });
});

describe('every input goes through it', () => {
  it('the key file: a FIFO in its place is refused at once (exit code 2), not waited on', () => {
    expect(() => secretKeys(fifo)).toThrow(expect.objectContaining({ name: 'InputFileError', exitCode: 2 }));
  });

  it('the project file: a FIFO is a problem of the file at 1:1, exit 2', async () => {
    const project = path.join(dir, 'project');
    fs.mkdirSync(project);
    execFileSync('mkfifo', [path.join(project, 'scrape-etl.yaml')]);
    await expect(loadProject(path.join(project, 'scrape-etl.yaml'), {})).rejects.toMatchObject({
      exitCode: 2,
      message: `${path.join(project, 'scrape-etl.yaml')}:1:1: <file>: the file is a FIFO (named pipe), not a regular file; name a regular file (a project file is read only from one)`,
    });
  });

  it('`load`: a FIFO or device among the inputs, or as --from list, is named before anything is loaded', async () => {
    await expect(expandInputs({ args: [fifo, '/dev/zero'] })).rejects.toThrow(
      `${fifo}: is a FIFO (named pipe), not a regular file; give a regular file, a folder or a quoted glob pattern\n/dev/zero: is a character device, not a regular file`,
    );
    await expect(expandInputs({ args: [], from: [fifo] })).rejects.toThrow(
      `--from ${fifo} is a FIFO (named pipe), not a regular file`,
    );
  });

  it('TLS files: a FIFO as the CA certificate is refused, not waited on', () => {
    expect(() => temporalConnectionSecurity({ tls: { serverCaCertPath: fifo }, apiKey: undefined })).toThrow(
      `cannot read TEMPORAL_TLS_SERVER_CA_CERT_PATH ${fifo}: ${fifo} is a FIFO (named pipe), not a regular file`,
    );
  });
});
