// Reads a CSV file with Python's csv module (strict mode): an independent reader, so a file is checked against
// what other programs parse, never against the writer's own settings.
import { execFileSync } from 'node:child_process';

const READER = `
import csv, json, sys
with open(sys.argv[1], newline='', encoding='utf-8-sig') as f:
    rows = list(csv.reader(f, delimiter=sys.argv[2], strict=True))
json.dump(rows, sys.stdout, ensure_ascii=True)
`;

/** Every record of the file, header first, as Python's csv.reader (strict, default dialect) sees them. */
export function readCsvWithPython(file: string, delimiter = ','): string[][] {
  const out = execFileSync('python3', ['-c', READER, file, delimiter], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(out) as string[][];
}
