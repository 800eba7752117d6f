// `scrape-etl simulate` (default settings) as a child process of a bench, which must not share the simulator's
// thread: its base URL, pid (for its CPU), request count and stop.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface SimulatorProcess {
  baseUrl: string;
  pid: number;
  /** Requests served since start or the last resetStats. */
  served(): Promise<number>;
  resetStats(): Promise<void>;
  close(): Promise<void>;
}

export async function simulatorProcess(token: string): Promise<SimulatorProcess> {
  const c = spawn(
    process.execPath,
    [path.join(root, 'bin', 'scrape-etl.js'), 'simulate', '--port', '0', '--token', token, '--seed', '12'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  c.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    c.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
    });
    void exited.then(() => reject(new Error(`simulator exited before listening:\n${err}`)));
  });
  const admin = (method: string) =>
    fetch(`${baseUrl}/_sim/stats`, { method, headers: { authorization: `Bearer ${token}` } });
  return {
    baseUrl,
    pid: c.pid!,
    served: async () => ((await (await admin('GET')).json()) as { total: number }).total,
    resetStats: async () => void (await admin('DELETE')).body?.cancel(),
    close: async () => {
      if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
      await exited;
    },
  };
}
