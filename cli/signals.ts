// Ctrl-C (SIGINT) and SIGTERM in the commands that start things: `run` traps them for its whole life, `worker`
// while it starts. Light on purpose (no imports): command modules load it at registration (see cli/main.ts).
import { EXIT } from '../lib/exit-codes.js';

/** Exit codes of a command ended by a signal, as a shell reports them (128 + the signal's number). */
export const SIGNAL_EXIT_CODES = { SIGINT: EXIT.sigint, SIGTERM: EXIT.sigterm } as const;
export type TrappedSignal = keyof typeof SIGNAL_EXIT_CODES;
const SIGNALS = Object.keys(SIGNAL_EXIT_CODES) as TrappedSignal[];

export interface SignalTrap {
  /** Aborted by the first Ctrl-C or SIGTERM after start-up. */
  signal: AbortSignal;
  /** 130 after SIGINT, 143 after SIGTERM (130 when none came). */
  exitCode(): number;
  /**
   * Ends the start-up phase: from now on the first signal stops the command at its next step instead of exiting
   * at once (call it just before the command starts something that must be left in order, e.g. a workflow).
   */
  started(): void;
  /**
   * Names the workflow this command is starting (its id is known before the start is sent): a second signal that
   * exits at once then says which run may be running, instead of a general "the run keeps going".
   */
  starting?(workflowId: string, resumeHint?: string): void;
  dispose(): void;
}

export interface TrapOptions {
  /**
   * Printed (on stderr) when a signal comes during start-up, before the command exits with 130 or 143 at once.
   * Start-up steps (obtaining the Temporal CLI, starting the embedded dev server, creating the worker) can take
   * a minute and cannot be cancelled half-way; nothing they leave behind needs the command: the dev server runs
   * detached and is managed by `scrape-etl server status|stop`, a lock left by this process is taken over by the
   * next one (its pid is dead).
   */
  whileStarting: string;
}

/**
 * Ctrl-C and SIGTERM for the whole of a command. During start-up (until `started()`) the first one exits at once:
 * the first Ctrl-C of a `run` whose embedded server was slow to start used to be noted and honoured only once
 * the server and worker were up (a minute and more). After start-up the first one stops the command at its next
 * step (the workflow, safe in Temporal, keeps running) and a second one exits at once. A signal that came before
 * the wait used to meet only the SDK's own handler, which stopped the worker and left the command waiting forever.
 */
export function trapSignals(opts: TrapOptions): SignalTrap {
  const abort = new AbortController();
  let starting = true;
  let received: TrappedSignal | undefined;
  let run: { workflowId: string; resumeHint?: string | undefined } | undefined;
  const onSignal = (sig: TrappedSignal) => {
    if (starting) {
      process.stderr.write(
        `${sig === 'SIGINT' ? 'interrupted' : 'terminated'} while starting: ${opts.whileStarting}\n`,
      );
      process.exit(SIGNAL_EXIT_CODES[sig]);
    }
    if (received !== undefined) {
      process.stderr.write(
        run
          ? `${sig} again: exiting now; run ${run.workflowId} keeps going in Temporal if its start reached the server${run.resumeHint ? `; resume with: ${run.resumeHint}` : ''}\n`
          : `${sig} again: exiting now; no run was started by this command\n`,
      );
      process.exit(SIGNAL_EXIT_CODES[sig]);
    }
    received = sig;
    abort.abort();
  };
  for (const sig of SIGNALS) process.on(sig, onSignal);
  return {
    signal: abort.signal,
    exitCode: () => SIGNAL_EXIT_CODES[received ?? 'SIGINT'],
    started() {
      starting = false;
    },
    starting(workflowId, resumeHint) {
      run = { workflowId, resumeHint };
    },
    dispose() {
      for (const sig of SIGNALS) process.off(sig, onSignal);
    },
  };
}

/**
 * For a command whose steady state handles signals itself (the worker: the SDK drains it): until the returned
 * function is called, SIGINT or SIGTERM exits at once with `message`.
 */
export function exitOnSignalWhileStarting(message: string): () => void {
  const trap = trapSignals({ whileStarting: message });
  return () => trap.dispose();
}
