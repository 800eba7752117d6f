// Finds and loads a read-only bundle that `npm run build` writes beside the compiled cli/ (scripts/cli-bundle.ts):
// dist/cli/<name>.bundle.cjs with its V8 code cache, loaded as the vendor bundles are (vendor/load-bundle.ts).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBundle } from '../vendor/load-bundle.js';

export interface ReadOnlyProgram {
  main(argv: string[]): Promise<void>;
}

/**
 * The program of the bundle `name` (cli/read-only-commands.ts), or undefined where there is none: run from the
 * sources (tsx, vitest), where the modules themselves run, or a dist/ that tsc wrote without the build's second half.
 */
export function readOnlyBundle(
  name: string,
  dir = path.dirname(fileURLToPath(import.meta.url)),
): ReadOnlyProgram | undefined {
  if (!fs.existsSync(path.join(dir, `${name}.bundle.cjs`))) return undefined;
  return loadBundle(name, dir).exports as unknown as ReadOnlyProgram;
}
