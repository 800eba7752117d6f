// A local folder as a lake target: keys are relative paths under it. Each object is written through
// ../atomic-file.ts (a hidden `.partial` file beside it, fsynced and renamed), so a reader never sees half a file,
// and the hidden name keeps it out of hive readers' sight (pyarrow skips names starting with '.', a `*.parquet`
// glob does not match it). A partial file a killed process left is an incomplete upload, removed by the lake.
import { copyFile, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { localTargetPath } from './index.js';
import { writeAtomically } from '../atomic-file.js';
import type { IncompleteUpload, ObjectTarget, StoredObject } from './types.js';

const PARTIAL = /^\..+\.partial$/;

export function openLocalTarget(url: string): ObjectTarget {
  const root = resolve(localTargetPath(url));
  const pathOf = (key: string) => {
    const p = resolve(root, key);
    if (p !== root && !p.startsWith(root + sep)) throw new Error(`export: the key ${key} is outside ${root}`);
    return p;
  };
  /** Every file under the folder holding `prefix`, as keys, with partial files apart. */
  const walk = async (keyPrefix: string): Promise<{ files: StoredObject[]; partials: IncompleteUpload[] }> => {
    const files: StoredObject[] = [];
    const partials: IncompleteUpload[] = [];
    const start = keyPrefix.endsWith('/') || keyPrefix === '' ? pathOf(keyPrefix) : dirname(pathOf(keyPrefix));
    const visit = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      for (const e of entries) {
        const full = join(dir, e.name);
        if (e.isDirectory()) await visit(full);
        else if (e.isFile()) {
          const key = relative(root, full).split(sep).join('/');
          const info = await stat(full);
          if (PARTIAL.test(e.name)) {
            if (key.startsWith(keyPrefix.slice(0, keyPrefix.lastIndexOf('/') + 1)))
              partials.push({ key, started: info.mtime });
          } else if (key.startsWith(keyPrefix)) files.push({ key, size: info.size });
        }
      }
    };
    await visit(start);
    return { files, partials };
  };
  return {
    url,
    prefix: '',
    locate: (key) => pathOf(key),
    async upload(key, file, opts = {}) {
      const dest = pathOf(key);
      await mkdir(dirname(dest), { recursive: true });
      opts.signal?.throwIfAborted();
      await writeAtomically(dest, async (temp) => copyFile(file, temp));
      opts.onProgress?.((await stat(dest)).size);
    },
    async putText(key, text) {
      const dest = pathOf(key);
      await mkdir(dirname(dest), { recursive: true });
      const { writeFile } = await import('node:fs/promises');
      await writeAtomically(dest, async (temp) => writeFile(temp, text, { flag: 'wx' }));
    },
    async getText(key) {
      try {
        return await readFile(pathOf(key), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async getBytes(key) {
      try {
        return await readFile(pathOf(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async download(key, file) {
      try {
        await copyFile(pathOf(key), file);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw err;
      }
    },
    list: async (keyPrefix) => (await walk(keyPrefix)).files.sort((a, b) => a.key.localeCompare(b.key)),
    async remove(keys) {
      for (const key of keys) await rm(pathOf(key), { force: true });
    },
    incompleteUploads: async (keyPrefix) =>
      (await walk(keyPrefix)).partials.sort((a, b) => a.started.getTime() - b.started.getTime()),
    async abortIncomplete(upload) {
      await rm(pathOf(upload.key), { force: true });
    },
    close: () => {},
  };
}
