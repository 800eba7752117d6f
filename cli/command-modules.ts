// Every command module of the program, in the order of the help's list, with the top-level commands each registers.
// A module is loaded only when its command runs (or for the help and the version, which list them all), so this list
// holds loaders, not modules. The bundled commands' entries are their bundles' own (cli/read-only-commands.ts).
import { EXPORT_MODULES } from './export-main.js';
import { PIPELINES_MODULES } from './pipelines-main.js';
import type { CommandModule } from './read-only-commands.js';
import { READ_ONLY_MODULES } from './read-only-main.js';

const bundled = (name: string): CommandModule => {
  const m = [...READ_ONLY_MODULES, ...PIPELINES_MODULES, ...EXPORT_MODULES].find((c) => c.names.includes(name));
  if (!m) throw new Error(`no bundled command module registers '${name}'`);
  return m;
};

export const COMMAND_MODULES: CommandModule[] = [
  { names: ['demo'], load: () => import('./commands/demo.js') },
  bundled('status'),
  bundled('history'),
  { names: ['prune'], load: () => import('./commands/prune.js') },
  { names: ['server'], load: () => import('./commands/server.js') },
  { names: ['schedule'], load: () => import('./commands/schedule.js') },
  { names: ['run'], load: () => import('./commands/run.js') },
  bundled('export'),
  { names: ['load'], load: () => import('./commands/load.js') },
  { names: ['validate'], load: () => import('./commands/validate.js') },
  { names: ['simulate'], load: () => import('./commands/simulate.js') },
  { names: ['worker'], load: () => import('./commands/worker.js') },
  bundled('schema'),
  { names: ['up', 'down'], load: () => import('./commands/up.js') },
  { names: ['init'], load: () => import('./commands/init.js') },
  { names: ['check'], load: () => import('./commands/check.js') },
  { names: ['console'], load: () => import('./commands/console.js') },
  { names: ['report'], load: () => import('./commands/report.js') },
  bundled('pipelines'),
  { names: ['cancel'], load: () => import('./commands/cancel.js') },
  { names: ['doctor'], load: () => import('./commands/doctor.js') },
];
