// Preload (not a benchmark): `NODE_OPTIONS=--import=<this file>` with BENCH_CPU_PROF_DIR set makes a Node process
// write a CPU profile of its main thread there when it exits, for processes the benchmarks do not spawn themselves
// (node refuses --cpu-prof in NODE_OPTIONS). Open the .cpuprofile in Chrome DevTools or summarise it.
import fs from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env['BENCH_CPU_PROF_DIR'];
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  process.once('exit', () => {
    // An in-process session answers synchronously, so the profile is written before the process ends.
    session.post('Profiler.stop', (err, res) => {
      if (!err) fs.writeFileSync(path.join(dir, `CPU.${process.pid}.cpuprofile`), JSON.stringify(res.profile));
    });
  });
}
