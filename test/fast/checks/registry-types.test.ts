// The check and watch registries are guided by the compiler (checks/registry.ts): a type without an entry, a
// definition without its evaluation and a schema whose output does not fit the check's type each fail to compile,
// naming what is missing. Each probe is compiled with the project's settings (tsconfig.json) as a file beside this
// one, in memory; the control probe, the same code complete, compiles clean, so the errors are the probes' own.
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.resolve(HERE, '..', '..', '..');

const HEADER = `
import { z } from 'zod';
import type { CheckDefinition, WatchDefinition } from '../../../checks/definition.js';
import { CHECKS, WATCHES, type CheckRegistry, type WatchRegistry } from '../../../checks/registry.js';
`;

const PROBES: Record<string, string> = {
  control: `
export const registry: CheckRegistry = { ...CHECKS };
export const watches: WatchRegistry = { ...WATCHES };
export const unique: CheckDefinition<'unique'> = {
  type: 'unique',
  description: 'd',
  schema: z.strictObject({ type: z.literal('unique'), name: z.string().optional(), severity: z.enum(['warn', 'error']), table: z.string(), columns: z.array(z.string()) }),
  references: (c) => ({ table: c.table, columns: [], expressions: [], problems: [] }),
  evaluate: async () => ({ status: 'pass', message: 'm' }),
};
`,
  'missing-evaluator': `
export const unique: CheckDefinition<'unique'> = {
  type: 'unique',
  description: 'd',
  schema: z.strictObject({ type: z.literal('unique'), name: z.string().optional(), severity: z.enum(['warn', 'error']), table: z.string(), columns: z.array(z.string()) }),
  references: (c) => ({ table: c.table, columns: [], expressions: [], problems: [] }),
};
`,
  'missing-check-entry': `
const { range: _range, ...rest } = CHECKS;
export const registry: CheckRegistry = rest;
`,
  'missing-watch-rows': `
export const newRows: WatchDefinition<'new_rows'> = {
  type: 'new_rows',
  description: 'd',
  filterTable: (w) => w.table,
  schema: WATCHES.new_rows.schema,
};
`,
  'schema-output-misfit': `
export const unique: CheckDefinition<'unique'> = {
  type: 'unique',
  description: 'd',
  schema: z.strictObject({ type: z.literal('unique'), name: z.string().optional(), severity: z.enum(['warn', 'error']), table: z.string() }),
  references: (c) => ({ table: c.table, columns: [], expressions: [], problems: [] }),
  evaluate: async () => ({ status: 'pass', message: 'm' }),
};
`,
};

function compileProbes(): Map<string, string[]> {
  const configFile = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
  const files = new Map(
    Object.entries(PROBES).map(([name, body]) => [path.join(HERE, `probe-${name}.ts`), `${HEADER}${body}`]),
  );
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, lang, ...rest) => {
    const text = files.get(path.resolve(file));
    return text !== undefined ? ts.createSourceFile(file, text, lang) : getSourceFile(file, lang, ...rest);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => files.has(path.resolve(file)) || fileExists(file);
  const program = ts.createProgram([...files.keys()], { ...options, noEmit: true }, host);
  const out = new Map<string, string[]>();
  for (const [file] of files) {
    const name = path.basename(file, '.ts').replace(/^probe-/, '');
    const diags = ts.getPreEmitDiagnostics(program, program.getSourceFile(file));
    out.set(
      name,
      diags.map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`),
    );
  }
  return out;
}

describe('check and watch registries are named by the compiler', () => {
  const results = compileProbes();

  it("the complete probe compiles (the errors below are the probes' own)", () => {
    expect(results.get('control')).toEqual([]);
  });

  it('a check definition without its evaluation does not compile', () => {
    expect(results.get('missing-evaluator')).toEqual([
      expect.stringMatching(/^TS2741: Property 'evaluate' is missing in type/),
    ]);
  });

  it('a check registry without an entry for a check type does not compile, naming the type', () => {
    expect(results.get('missing-check-entry')).toEqual([
      expect.stringMatching(/^TS2741: Property 'range' is missing in type/),
    ]);
  });

  it('a watch definition without its rows does not compile', () => {
    expect(results.get('missing-watch-rows')).toEqual([
      expect.stringMatching(/^TS2741: Property 'rows' is missing in type/),
    ]);
  });

  it("a schema whose output does not fit the check's type does not compile", () => {
    expect(results.get('schema-output-misfit')).toEqual([expect.stringMatching(/^TS2(322|741): [\s\S]*'columns'/)]);
  });
});
