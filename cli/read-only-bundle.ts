// Finds and loads the read-only bundle that `npm run build` writes beside the compiled cli/ (scripts/cli-bundle.ts):
// dist/cli/read-only.bundle.cjs with its V8 code cache, loaded as the vendor bundles are (vendor/load-bundle.ts).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBundle } from '../vendor/load-bundle.js';

/** The bundle's name: its files are `<name>.bundle.cjs` and `<name>.bundle.cache` in the compiled cli/. */
export const READ_ONLY_BUNDLE = 'read-only';

export interface ReadOnlyProgram {
  main(argv: string[]): Promise<void>;
}

/**
 * The bundled read-only program, or undefined where there is none: run from the sources (tsx, vitest), where the
 * modules themselves run, or a dist/ that tsc wrote without the build's second half.
 */
export function readOnlyBundle(dir = path.dirname(fileURLToPath(import.meta.url))): ReadOnlyProgram | undefined {
  if (!fs.existsSync(path.join(dir, `${READ_ONLY_BUNDLE}.bundle.cjs`))) return undefined;
  return loadBundle(READ_ONLY_BUNDLE, dir).exports as unknown as ReadOnlyProgram;
}
