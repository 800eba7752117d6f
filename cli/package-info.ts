// The package's own package.json (name, version). It is found by walking up from this module because the
// module runs from two depths: cli/ in the sources (tsx, vitest) and dist/cli/ when compiled.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PackageInfo {
  name: string;
  version: string;
}

let own: PackageInfo | undefined;

/** This package's name and version (read once: the thin `run` asks for it twice, for --version and its identity). */
export function packageInfo(): PackageInfo {
  return (own ??= packageInfoAbove(path.dirname(fileURLToPath(import.meta.url))));
}

function packageInfoAbove(from: string): PackageInfo {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<PackageInfo>;
      if (pkg.name === 'scrape-etl' && typeof pkg.version === 'string') return { name: pkg.name, version: pkg.version };
    }
    if (path.dirname(dir) === dir) throw new Error(`no package.json of scrape-etl above ${from}`);
  }
}
