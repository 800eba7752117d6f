// The inputs of `scrape-etl load`, expanded by the command itself into the list of files to load: files, directories
// (every *.json below them), glob patterns (quoted so the shell leaves them alone: a shell expanding 100,000 names
// hits the kernel's argument limit, `spawn E2BIG` through npx), and lists of paths read from stdin (`-`) or from
// files (`--from list.txt`), one per line. The whole list is known, and every problem with it reported, before
// anything is read or loaded.
import { EXIT } from '../lib/exit-codes.js';
import fs from 'node:fs';
import path from 'node:path';
import { fileTypeOf, InputFileError, readInputTextSync } from '../lib/input-file.js';
import { glob, isDynamicPattern } from '../vendor/tinyglobby.js';

export class LoadInputsError extends Error {
  readonly exitCode = EXIT.usage;
}

export interface InputSources {
  /** Command-line arguments: files, directories, glob patterns, or `-` for a list on stdin. */
  args: string[];
  /** Files listing one input per line (the same kinds as arguments, `-` excepted). */
  from?: string[];
  /** Reads stdin to its end; only called when an argument is `-`. */
  readStdin?: () => Promise<string>;
}

async function readAllStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The lines of a path list: CRLF or LF, blank lines skipped, surrounding spaces kept (they may be in a name). */
function listLines(text: string): string[] {
  return text.split(/\r?\n/).filter((l) => l.trim() !== '');
}

/**
 * Expands the inputs into files, in order: each input's files in the order given, a directory's or a pattern's
 * files sorted by path. A file named twice (directly, or through a directory and a pattern) is loaded once, where it
 * first appears. Throws LoadInputsError naming every input that matches nothing or cannot be read.
 */
export async function expandInputs(sources: InputSources): Promise<string[]> {
  const inputs: Array<{ input: string; origin: string }> = [];
  const problems: string[] = [];
  let stdinUsed = false;
  for (const arg of sources.args) {
    if (arg !== '-') {
      inputs.push({ input: arg, origin: '' });
      continue;
    }
    if (stdinUsed) {
      problems.push("'-' is given more than once; stdin can be read only once");
      continue;
    }
    stdinUsed = true;
    for (const line of listLines(await (sources.readStdin ?? readAllStdin)()))
      inputs.push({ input: line, origin: ' (listed on stdin)' });
  }
  for (const list of sources.from ?? []) {
    let text: string;
    try {
      text = readInputTextSync(list, 'list');
    } catch (err) {
      problems.push(
        err instanceof InputFileError
          ? `--from ${err.message}`
          : `--from ${list}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
      continue;
    }
    // Relative paths in a list are relative to the current directory, as on the command line (`find > list.txt`).
    for (const line of listLines(text)) inputs.push({ input: line, origin: ` (listed in ${list})` });
  }
  if (inputs.length === 0 && problems.length === 0)
    problems.push(
      'no input files: give files, directories, quoted glob patterns, - (a list on stdin) or --from <list>',
    );

  const files: string[] = [];
  const seen = new Set<string>();
  const add = (file: string) => {
    const key = path.resolve(file);
    if (seen.has(key)) return;
    seen.add(key);
    files.push(file);
  };
  for (const { input, origin } of inputs) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(input);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // A path that does not exist may be a pattern; any other failure (permissions, a loop) is reported as is.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        problems.push(`${input}${origin}: cannot read: ${code ?? (err as Error).message}`);
        continue;
      }
    }
    if (stat?.isDirectory()) {
      const found = await glob('**/*.json', {
        cwd: input,
        onlyFiles: true,
        followSymbolicLinks: true,
        expandDirectories: false,
      });
      if (found.length === 0) problems.push(`${input}${origin}: directory holds no .json file`);
      for (const f of found.sort()) add(path.join(input, f));
    } else if (stat?.isFile()) {
      add(input);
    } else if (stat) {
      // Refused before anything is loaded, as lib/input-file.ts would refuse it when read.
      problems.push(
        `${input}${origin}: is ${fileTypeOf(stat)}, not a regular file; give a regular file, a folder or a quoted glob pattern`,
      );
    } else if (isDynamicPattern(input)) {
      const found = await glob(input, {
        onlyFiles: true,
        followSymbolicLinks: true,
        expandDirectories: false,
        absolute: path.isAbsolute(input),
      });
      if (found.length === 0) problems.push(`${input}${origin}: no file matches this pattern`);
      for (const f of found.sort()) add(f);
    } else {
      problems.push(`${input}${origin}: no such file or directory`);
    }
  }
  if (problems.length > 0) throw new LoadInputsError(`${problems.join('\n')}\nnothing loaded`);
  return files;
}
