// Own it or refuse it, as ssh does with ~/.ssh and Postgres with its data directory. Whoever can write the data
// folder, the key file, the pid and state files or the embedded server's files can make this user's worker run
// their pipeline with this user's token: plant a key file of their own (and sign runs with it), point the state
// file at a server of theirs, or swap the server's database. So each of these must belong to the user running the
// command and be writable by nobody else; anything else is refused with one sentence naming it and the fix, before
// it is read. A path that does not exist yet passes: the tool creates it private (lib/private-files.ts).
// One check for every place that opens these (lib/secret-key.ts, temporal/dev-server.ts, cli/up/paths.ts,
// cli/run-state.ts, cli/project.ts); see docs/security.md.
import fs from 'node:fs';
import path from 'node:path';

/** Refused ownership or mode: a configuration for the user to fix, nothing started (exit 2). */
export class NotOwnedError extends Error {
  override readonly name = 'NotOwnedError';
  readonly exitCode = 2;
}

export interface OwnedCheck {
  /** What the path is, for the sentence: "the data folder", "the secret key file", ... */
  what: string;
  /** Where the path was set, when not by SCRAPE_ETL_DATA_DIR or a default: "data_dir in /p/scrape-etl.yaml". */
  setBy?: string;
  /**
   * For the folder of a single file the check also reads (the key file's): a folder root owns with the sticky bit
   * (/tmp) is accepted, since there nobody can rename or delete another user's file, and a file planted under the
   * name before it was made is another user's and refused by its own check. Never for the data folder, where the
   * tool makes folders and files of its own.
   */
  stickyRootOk?: boolean;
}

/**
 * Refuses `p` (a folder or a file, symbolic links followed) unless it is missing, or owned by this process's user
 * and not writable by group or others. A shared folder such as /tmp itself is refused as a data folder, sticky or
 * not (see stickyRootOk for the one exception).
 */
export function assertOwned(p: string, check: OwnedCheck): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid === undefined) return; // Windows: no owners and modes to compare
  const folder = st.isDirectory();
  if (check.stickyRootOk && folder && st.uid === 0 && (st.mode & 0o1000) !== 0) return;
  const where = `${check.what} ${p}${check.setBy ? ` (${check.setBy})` : ''}`;
  if (st.uid !== uid) {
    const fix = folder
      ? "use a folder you own (SCRAPE_ETL_DATA_DIR or the project file's data_dir)"
      : `use a file you own (copy it: cp ${p} <your folder>, chmod 600 it, and name the copy)`;
    throw new NotOwnedError(
      `${where} belongs to another user (uid ${st.uid}, you are ${uid}), who could replace what scrape-etl trusts in it; ${fix}`,
    );
  }
  if ((st.mode & 0o022) !== 0) {
    throw new NotOwnedError(
      `${where} can be written by ${st.mode & 0o002 ? 'every user' : 'its group'} (mode ${(st.mode & 0o777).toString(8)}), who could replace what scrape-etl trusts in it; make it yours alone: chmod go-w ${p}`,
    );
  }
}

const origins = new Map<string, string>();

/** Records that `dataDir` came from a setting a user should be pointed at (a project file's data_dir). */
export function noteDataDirOrigin(dataDir: string, setBy: string): void {
  origins.set(path.resolve(dataDir), setBy);
}

/** The data folder (SCRAPE_ETL_DATA_DIR, a project file's data_dir, or ./data): see assertOwned. */
export function assertOwnedDataDir(dataDir: string): void {
  const setBy = origins.get(path.resolve(dataDir));
  assertOwned(dataDir, { what: 'the data folder', ...(setBy ? { setBy } : {}) });
}
