// The data folder's secret: 32 random bytes in a file only its owner can read (0600), created on first use. Two keys
// are derived from it (HKDF-SHA256): one encrypts every Temporal payload (temporal/payload-codec.ts), one signs every
// workflow input (lib/seal.ts). Whoever cannot read this file can neither read the runs' inputs and results in the
// Temporal server's history nor start a run that a worker holding the file will carry out. See docs/security.md.
import { hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readInputTextSync } from './input-file.js';
import { assertOwned, assertOwnedDataDir } from './owned-path.js';
import { processSettings, settingsFor } from '../settings/process.js';
import type { Env } from '../settings/settings.js';

export const KEY_FILE_NAME = 'secret.key';
const KEY_BYTES = 32;

/**
 * SCRAPE_ETL_KEY_FILE, else `<data folder>/secret.key` (SCRAPE_ETL_DATA_DIR, default ./data). A worker on another
 * machine than the commands that start runs needs a copy of the same file (SCRAPE_ETL_KEY_FILE names it).
 */
export function secretKeyFile(env?: Env): string {
  const settings = settingsFor(env);
  const explicit = settings.keyFile;
  if (explicit) return path.resolve(explicit);
  return path.resolve(settings.dataDir, KEY_FILE_NAME);
}

export interface SecretKeys {
  /** Which key this is (first 8 bytes of a hash of it, hex): named in payloads and errors, reveals nothing. */
  id: string;
  encryption: Buffer;
  signing: Buffer;
}

const cache = new Map<string, SecretKeys>();

function derive(secret: Buffer): SecretKeys {
  const sub = (info: string) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), info, KEY_BYTES));
  return {
    id: sub('scrape-etl key id').subarray(0, 8).toString('hex'),
    encryption: sub('scrape-etl payload encryption'),
    signing: sub('scrape-etl input signature'),
  };
}

/**
 * The keys of `file` (created 0600 with a fresh secret when missing). Refuses a key file others can read, and one
 * (or a folder of it) another user owns or others can write (lib/owned-path.ts).
 */
export function secretKeys(file: string = secretKeyFile()): SecretKeys {
  const cached = cache.get(file);
  if (cached) return cached;
  // A folder others can write lets them swap the file for a key of their own: refused before the file is read.
  if (file === path.resolve(processSettings().dataDir, KEY_FILE_NAME)) assertOwnedDataDir(path.dirname(file));
  else assertOwned(path.dirname(file), { what: 'the folder of the secret key file', stickyRootOk: true });
  let secret: Buffer;
  try {
    secret = readKeyFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, randomBytes(KEY_BYTES).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e; // another process created it first: use theirs
    }
    secret = readKeyFile(file);
  }
  const keys = derive(secret);
  cache.set(file, keys);
  return keys;
}

function readKeyFile(file: string): Buffer {
  assertOwned(file, { what: 'the secret key file' });
  const st = fs.statSync(file);
  if ((st.mode & 0o077) !== 0) {
    throw new Error(
      `${file}: the secret key file can be read by other users (mode ${(st.mode & 0o777).toString(8)}); make it the owner's only: chmod 600 ${file}`,
    );
  }
  const text = readInputTextSync(file, 'key').trim();
  const secret = Buffer.from(text, 'base64');
  if (secret.length !== KEY_BYTES) {
    // A key file being written by another process right now is not yet whole: read it again once.
    throw new Error(
      `${file}: not a scrape-etl secret key (expected ${KEY_BYTES} bytes in base64); restore it from its copy, or delete it to create a new one (runs started with the old key then fail)`,
    );
  }
  return secret;
}
