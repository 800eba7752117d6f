// `scrape-etl up` as a user runs it: a child process of the real command in the foreground, its output collected,
// with helpers to wait for what it prints and to stop or kill it.
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, REPO_ROOT } from './cli.js';

export interface UpProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once `up` printed its screen (its workers poll); rejects if it exits first or after `timeoutMs`. */
  ready(timeoutMs?: number): Promise<void>;
  /** The metrics URL its screen names (with --metrics-port), or undefined. */
  metricsUrl(): string | undefined;
  /** Resolves with its exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startUp(args: string[], opts: { cwd?: string; env: NodeJS.ProcessEnv }): UpProcess {
  const child = spawn(process.execPath, [CLI, 'up', ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    metricsUrl: () => /metrics:\s+(http:\/\/\S+\/metrics)/.exec(out)?.[1],
    async ready(timeoutMs = 180_000) {
      const deadline = Date.now() + timeoutMs;
      while (!/stops it: the workers drain/.test(out)) {
        if (done) throw new Error(`scrape-etl up exited while starting\nstdout:\n${out}\nstderr:\n${err}`);
        if (Date.now() > deadline)
          throw new Error(`scrape-etl up not ready within ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

/** Polls `check` until it returns a value other than undefined (or throws after `timeoutMs`, naming `what`). */
export async function until<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 120_000,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** SIGKILLs every `up` of the list still running (a case that failed before stopping its own), and empties the list. */
export async function killUps(ups: UpProcess[]): Promise<void> {
  for (const up of ups.splice(0)) {
    if (up.child.exitCode === null && up.child.signalCode === null) {
      up.child.kill('SIGKILL');
      await up.exited;
    }
  }
}
