// The one way the product reads a file a user names as input (pipeline and project files, `request.urls_file`, the
// key file, `load`'s response files and `--from` lists, TLS files): only a regular file, only up to a size fixed per
// kind of input (docs/security.md, "Inputs"). A FIFO blocks `open` and `read` until a writer comes, and a thread
// blocked there makes the process deaf to signals; a device such as /dev/zero or /dev/urandom never ends; a
// directory is no text. So a path is looked at before it is opened (opening a device can have effects of its own),
// opened with O_NONBLOCK (a FIFO swapped in meanwhile returns at once instead of waiting for a writer), looked at
// again through the open descriptor, and read only up to its limit, however much the file holds or grows.
// Light (node:fs alone): every command reads its project file through it.
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { defaultOf, SETTINGS } from '../settings/definition.js';
import { settingsFor } from '../settings/process.js';
import type { Env } from '../settings/settings.js';

const MiB = 1024 * 1024;

export interface InputKind {
  /** What the file is, in messages: "a <what> may have". */
  what: string;
  /** The most bytes read. */
  max: number;
  /** The setting that raises the limit, when there is one (settings/definition.ts), and its variable. */
  setting?: 'maxPipelineBytes' | 'maxUrlsFileBytes' | 'maxLoadFileBytes';
  env?: string;
  /** What to do about a file over the limit. */
  tooBig: string;
}

/** Every kind of input file and its limit; docs/security.md's table of limits is this one. */
export const INPUT_KINDS = {
  project: { what: 'project file', max: 1 * MiB, tooBig: 'a project file holds a few settings: is it the right file?' },
  pipeline: {
    what: 'pipeline file',
    max: defaultOf('maxPipelineBytes'),
    setting: 'maxPipelineBytes',
    env: SETTINGS.maxPipelineBytes.env,
    tooBig:
      'put a long URL list in a file of its own, one URL a line, and name it in the pipeline: request.urls_file: urls.txt (relative to the pipeline file)',
  },
  urls: {
    what: 'URL list',
    max: defaultOf('maxUrlsFileBytes'),
    setting: 'maxUrlsFileBytes',
    env: SETTINGS.maxUrlsFileBytes.env,
    tooBig: 'split the list over several pipelines',
  },
  key: {
    what: 'secret key file',
    max: 4096,
    tooBig: 'a key file holds 44 characters of base64: restore it from its copy',
  },
  load: {
    what: 'response file',
    max: defaultOf('maxLoadFileBytes'),
    setting: 'maxLoadFileBytes',
    env: SETTINGS.maxLoadFileBytes.env,
    tooBig: 'a response file holds one answer of the service',
  },
  list: {
    what: 'list of paths',
    max: 64 * MiB,
    tooBig: 'split the list, or give a folder or a quoted glob pattern instead',
  },
  tls: { what: 'TLS certificate or key file', max: 1 * MiB, tooBig: 'give the PEM file itself' },
} as const satisfies Record<string, InputKind>;

export type InputKindName = keyof typeof INPUT_KINDS;

/** The limit of a kind in these settings (default: this process's): its setting, or the fixed limit of a kind without one. */
export function inputLimit(kind: InputKindName, env?: Env): number {
  const k: InputKind = INPUT_KINDS[kind];
  return k.setting === undefined ? k.max : settingsFor(env)[k.setting];
}

/** A file that is not a regular file, or is over its limit. `reason` follows the file's name: "is a FIFO …". */
export class InputFileError extends Error {
  readonly code = 'EINPUTFILE';
  /** Configuration the user fixes, not a failure of the program: the README's exit code 2. */
  readonly exitCode = 2;
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`${file} ${reason}; ${fix}`);
    this.name = 'InputFileError';
  }
}

/** What a file that is not a regular one is, for messages: "a FIFO (named pipe)". */
export function fileTypeOf(st: fs.Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a directory';
  return 'not a file';
}

function size(n: number): string {
  return n >= MiB ? `${(n / MiB).toFixed(1)} MB` : `${n} bytes`;
}

function refuseType(file: string, kind: InputKindName, st: fs.Stats): InputFileError {
  return new InputFileError(
    file,
    `is ${fileTypeOf(st)}, not a regular file`,
    `name a regular file (a ${INPUT_KINDS[kind].what} is read only from one)`,
  );
}

function refuseSize(file: string, kind: InputKindName, bytes: number, max: number, exact: boolean): InputFileError {
  const k: InputKind = INPUT_KINDS[kind];
  const raise = k.env === undefined ? '' : ` (${k.env})`;
  return new InputFileError(
    file,
    `is ${exact ? '' : 'more than '}${size(bytes)}, over the ${size(max)} a ${k.what} may have${raise}`,
    k.tooBig,
  );
}

function check(file: string, kind: InputKindName, st: fs.Stats, max: number): void {
  if (!st.isFile()) throw refuseType(file, kind, st);
  if (st.size > max) throw refuseSize(file, kind, st.size, max, true);
}

// O_NONBLOCK: opening a FIFO for reading does not wait for a writer; on a regular file it changes nothing.
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOCTTY ?? 0);
const CHUNK = 64 * 1024;

/**
 * The bytes of a regular file of at most the kind's limit. An error of the file system (ENOENT, EACCES) is thrown as
 * it is, with its code; a file of another type or over the limit is an InputFileError.
 */
export function readInputFileSync(file: string, kind: InputKindName, env?: Env): Buffer {
  const max = inputLimit(kind, env);
  check(file, kind, fs.statSync(file), max);
  const fd = fs.openSync(file, OPEN_FLAGS);
  try {
    const st = fs.fstatSync(fd);
    check(file, kind, st, max);
    // A file that grows after fstat (a log, a /proc file that reports size 0) is read up to the limit and no further.
    const chunks: Buffer[] = [];
    let total = 0;
    for (let want = Math.min(st.size, max) + 1; ; want = Math.min(CHUNK, max + 1 - total)) {
      const buf = Buffer.allocUnsafe(want);
      const n = fs.readSync(fd, buf, 0, want, null);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > max) throw refuseSize(file, kind, max, max, false);
    }
    // A file read in one go (the usual case: its size known from fstat) is returned as read, not copied once more.
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    fs.closeSync(fd);
  }
}

export function readInputTextSync(file: string, kind: InputKindName, env?: Env): string {
  return readInputFileSync(file, kind, env).toString('utf8');
}

/** An open regular file within its limit, for a caller that streams it (close the handle when done). */
export async function openInputFile(
  file: string,
  kind: InputKindName,
  env?: Env,
): Promise<{ handle: FileHandle; max: number }> {
  const max = inputLimit(kind, env);
  check(file, kind, await fs.promises.stat(file), max);
  const handle = await fs.promises.open(file, OPEN_FLAGS);
  try {
    check(file, kind, await handle.stat(), max);
  } catch (err) {
    await handle.close();
    throw err;
  }
  return { handle, max };
}

/** The text of a regular file of at most the kind's limit, read without blocking the event loop. */
export async function readInputText(file: string, kind: InputKindName, env?: Env): Promise<string> {
  const { handle, max } = await openInputFile(file, kind, env);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK * 16, max + 1 - total));
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
      if (total > max) throw refuseSize(file, kind, max, max, false);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The lines of a regular file of at most the kind's limit, streamed (a long list never becomes one string). Throws
 * InputFileError at the end when the file held more than the limit.
 */
export async function* inputLines(file: string, kind: InputKindName, env?: Env): AsyncGenerator<string> {
  const { handle, max } = await openInputFile(file, kind, env);
  const { createInterface } = await import('node:readline');
  // `end` is inclusive: one byte past the limit is read, which tells a file at the limit from one over it.
  const input = handle.createReadStream({ start: 0, end: max, encoding: 'utf8', autoClose: true });
  const rl = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of rl) yield line;
    if (input.bytesRead > max) throw refuseSize(file, kind, max, max, false);
  } finally {
    rl.close();
    input.destroy();
  }
}
