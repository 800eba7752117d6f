// The files in which `run` remembers a pipeline's unfinished runs (cli/run-state.ts): one per name, destination
// and file, named <pipeline>--<hash>.json.
import fs from 'node:fs';
import path from 'node:path';

export function runFilesOf(dataDir: string, pipeline: string): string[] {
  const dir = path.join(dataDir, 'runs');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.startsWith(`${pipeline}--`) && f.endsWith('.json'))
    .map((f) => path.join(dir, f));
}
