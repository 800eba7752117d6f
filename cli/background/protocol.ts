// What a thin `run` process and the background worker say to each other over the worker's Unix socket: one JSON
// object per line. Light (node built-ins only), like everything the thin process loads.
import type net from 'node:net';
import readline from 'node:readline';
import type { RunFlags } from '../commands/run.js';

/** What the worker needs to know of one of the client's output streams to write to it as the client would. */
export interface StreamInfo {
  isTTY: boolean;
  columns?: number;
}

export type ClientMessage =
  /** Carry out `scrape-etl run <file>` with these flags, writing to the client's streams. */
  | { type: 'run'; file: string; flags: RunFlags; key: string; stdout: StreamInfo; stderr: StreamInfo }
  /** The client got Ctrl-C (SIGINT) or SIGTERM after the run started: stop waiting, leave the run going. */
  | { type: 'signal'; signal: 'SIGINT' | 'SIGTERM' }
  /** A worker of another identity is about to poll: stop polling now, exit once the current clients are served. */
  | { type: 'retire' };

export type WorkerMessage =
  | { type: 'out'; fd: 1 | 2; data: string }
  /** The run is being started: from now on a signal stops the waiting, not the command at once. */
  | { type: 'started' }
  | { type: 'exit'; code: number }
  /** This worker cannot serve (its Temporal server was restarted or stopped); it is retiring, start another. */
  | { type: 'stale'; reason: string }
  /** Answer to `retire`: this worker polls no more. */
  | { type: 'retired' };

export function send(socket: net.Socket, message: ClientMessage | WorkerMessage): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(message)}\n`);
}

/** Calls `onMessage` for each line that comes in; a line that is not JSON is ignored (nothing else writes there). */
export function onMessages<T>(socket: net.Socket, onMessage: (message: T) => void): void {
  const lines = readline.createInterface({ input: socket, crlfDelay: Infinity });
  lines.on('line', (line) => {
    let message: T;
    try {
      message = JSON.parse(line) as T;
    } catch {
      return;
    }
    onMessage(message);
  });
}
