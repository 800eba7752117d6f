// A lock between processes sharing a folder: a file created exclusively, holding the holder's pid. Serialises
// the embedded dev server's start and stop (two commands started together must not start two servers).
import fs from 'node:fs';
import { isProcessAlive } from './process-alive.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` holding `lockFile`; `what` names the lock in the timeout error. */
export async function withFileLock<T>(lockFile: string, what: string, fn: () => Promise<T>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = fs.openSync(lockFile, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A holder that died (SIGKILL) leaves its lock behind; its pid tells us.
      const holder = Number(fs.readFileSync(lockFile, { encoding: 'utf8', flag: 'a+' }) || NaN);
      if (Number.isInteger(holder) && holder > 0 && !isProcessAlive(holder)) {
        fs.rmSync(lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} ${lockFile} (held by pid ${holder})`);
      await sleep(100);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockFile, { force: true });
  }
}
