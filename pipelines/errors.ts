// Problems found in pipeline files, each with its place in the file, formatted `file:line:col: path: message`.
import { EXIT } from '../lib/exit-codes.js';

export interface PipelineIssue {
  file: string;
  line: number;
  col: number;
  /** Dotted path in the pipeline object (`request.keywords[0].prompt`), or '<root>' / '<yaml>'. */
  path: string;
  message: string;
  /** The nearest allowed key or value when the message suggests one ("did you mean 'x'?"). */
  suggestion?: string;
}

/** The suggestion a message carries, if any: one rule for every "did you mean" the checks write. */
export function suggestionOf(message: string): string | undefined {
  return /did you mean '([^']+)'\?/.exec(message)?.[1];
}

/** An issue as `validate --json` prints it: named fields, `column` spelled out, `suggestion` null when none. */
export function issueJson(issue: PipelineIssue): {
  file: string;
  line: number;
  column: number;
  path: string;
  message: string;
  suggestion: string | null;
} {
  return {
    file: issue.file,
    line: issue.line,
    column: issue.col,
    path: issue.path,
    message: issue.message,
    suggestion: issue.suggestion ?? suggestionOf(issue.message) ?? null,
  };
}

export function formatIssue(issue: PipelineIssue): string {
  return `${issue.file}:${issue.line}:${issue.col}: ${issue.path}: ${issue.message}`;
}

/** Every problem of one pipeline file. The CLI exits with `exitCode` (2: the input is wrong, not the program). */
export class PipelineFileError extends Error {
  readonly exitCode = EXIT.usage;
  constructor(
    readonly file: string,
    readonly issues: PipelineIssue[],
  ) {
    super(issues.map(formatIssue).join('\n'));
    this.name = 'PipelineFileError';
  }
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return '<root>';
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}
