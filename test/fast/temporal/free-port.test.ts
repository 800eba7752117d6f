// Ports handed to a server process lie below the kernel's ephemeral range, where an outgoing connection of the
// machine cannot take them between the check and the server's bind (lib/free-port.ts).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ephemeralPortFloor, freePortSet, portIsFree } from '../../../lib/free-port.js';

describe('free ports for server processes', () => {
  it('reads the floor of the ephemeral range from the kernel, or assumes 49152', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-port-range-'));
    const file = path.join(dir, 'ip_local_port_range');
    fs.writeFileSync(file, '40000\t60999\n');
    expect(ephemeralPortFloor(file)).toBe(40000);
    expect(ephemeralPortFloor(path.join(dir, 'absent'))).toBe(49152);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a pair as the dev server's and a set with offsets lie below the ephemeral range, free, and not given twice", async () => {
    const floor = ephemeralPortFloor();
    for (let i = 0; i < 20; i++) {
      const p = await freePortSet([0, 1000]); // the dev server's gRPC and UI ports
      expect(p).toBeGreaterThanOrEqual(10_000);
      expect(p + 1000).toBeLessThan(floor);
      expect(await portIsFree(p)).toBe(true);
      expect(await portIsFree(p + 1000)).toBe(true);
    }
    const taken = new Set<number>();
    const bases = [];
    for (let i = 0; i < 5; i++) bases.push(await freePortSet([0, 10_000], { taken }));
    expect(taken.size).toBe(10);
    for (const b of bases) expect(b + 10_000).toBeLessThan(floor);
  });

  it('skips a port something listens on, and says when no room is left below the floor', async () => {
    // Below a floor of 10002, with 10000 already given out, 10001 is the only candidate: listened on, none is found.
    const srv = net.createServer();
    await new Promise<void>((resolve) => {
      srv.once('error', () => resolve()); // already taken by someone else: busy all the same
      srv.listen(10_001, '127.0.0.1', resolve);
    });
    expect(await portIsFree(10_001)).toBe(false);
    await expect(freePortSet([0], { floor: 10_002, taken: new Set([10_000]) })).rejects.toThrow(
      /could not find free ports/,
    );
    await expect(freePortSet([0, 1000], { floor: 10_500 })).rejects.toThrow(/no room below port 10500/);
    if (srv.listening) await new Promise<void>((r) => srv.close(() => r()));
    const free = await freePortSet([0], { floor: 10_002 });
    expect([10_000, 10_001]).toContain(free);
  });
});
