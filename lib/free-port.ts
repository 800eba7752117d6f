// Ports chosen here are handed to another process (the Temporal dev server, Postgres, SeaweedFS), which binds them
// moments later. A port the kernel gives for `listen(0)` comes from the ephemeral range, the same range it draws
// the local port of every outgoing connection from; in that moment one of the machine's own connections can take
// it, and the server then dies with "address already in use" (seen in CI: the dev server's UI port, 36137, taken
// between the check and the bind). So the ports chosen here lie below that range, where only listeners live.
import fs from 'node:fs';
import net from 'node:net';

/** The lowest port the kernel hands to outgoing connections (Linux's ip_local_port_range; elsewhere IANA's 49152). */
export function ephemeralPortFloor(rangeFile = '/proc/sys/net/ipv4/ip_local_port_range'): number {
  try {
    const low = Number(fs.readFileSync(rangeFile, 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 0) return low;
  } catch {
    // not Linux, or not readable
  }
  return 49152;
}

/** Resolves true when nothing listens on 127.0.0.1:`port` (it binds the port for a moment and lets it go). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** Registered ports start at 1024; below 10000 live many well-known services a user may run. */
const LOWEST = 10_000;

/**
 * A port p such that p + every one of `offsets` is free on 127.0.0.1 and below the ephemeral range; none of them in
 * `taken` (ports already given out by the same caller). Tried at random, 200 times at most.
 */
export async function freePortSet(
  offsets: readonly number[] = [0],
  opts: { taken?: Set<number>; floor?: number } = {},
): Promise<number> {
  const taken = opts.taken ?? new Set<number>();
  const span = Math.max(...offsets, 0);
  const highest = Math.min(opts.floor ?? ephemeralPortFloor(), 65536) - 1 - span;
  if (highest < LOWEST)
    throw new Error(`no room below port ${opts.floor ?? ephemeralPortFloor()} for ${span + 1} ports`);
  for (let i = 0; i < 200; i++) {
    const base = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));
    const ports = offsets.map((o) => base + o);
    if (ports.some((p) => taken.has(p))) continue;
    let free = true;
    for (const p of ports) {
      if (!(await portIsFree(p))) {
        free = false;
        break;
      }
    }
    if (!free) continue;
    for (const p of ports) taken.add(p);
    return base;
  }
  throw new Error(`could not find free ports (offsets ${offsets.join(', ')}) below ${highest + span + 1}`);
}
