// The loader checks a file with the member of its own kind only, parsed without zod's compiled fast path
// (pipelines/schema.ts pipelineSchemaFor, pipelines/loader.ts): what it accepts, fills in and reports must be what
// the union of every kind, with zod's defaults, gives for the same data. Checked on every example pipeline, valid
// and with mistakes of every sort the loader words (wrong types, unknown keys, missing keys, cross-field checks,
// an unknown or missing kind, not a mapping at all).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { pipelineSchema, pipelineSchemaFor } from '../../../pipelines/schema.js';

const EXAMPLES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'pipelines', 'examples');

type Data = Record<string, unknown>;
const MISTAKES: Array<[string, (d: Data) => unknown]> = [
  ['as written', (d) => d],
  ['name of the wrong type', (d) => ({ ...d, name: 42 })],
  ['an unknown top-level key', (d) => ({ ...d, concurency: 2 })],
  ['an unknown key in request', (d) => ({ ...d, request: { ...(d['request'] as Data), colour: 'red' } })],
  ['request missing', (d) => ({ ...d, request: undefined })],
  ['request not a mapping', (d) => ({ ...d, request: ['x'] })],
  ['an export without dir or to, with a bad table', (d) => ({ ...d, exports: [{ tables: ['nope'], bom: 'yes' }] })],
  ['a bad schedule', (d) => ({ ...d, schedule: { cron: '* *', timezone: 'Mars/Olympus', extra: 1 } })],
  ['concurrency out of range', (d) => ({ ...d, concurrency: 0 })],
  ['a check with a bad type', (d) => ({ ...d, checks: [{ type: 'no_such_check' }] })],
  ['an unknown kind', (d) => ({ ...d, kind: 'job-bored' })],
  ['kind missing', (d) => ({ ...d, kind: undefined })],
  ['not a mapping', () => ['name', 'kind']],
];

function outcome(result: z.ZodSafeParseResult<unknown>): unknown {
  return result.success
    ? { data: result.data }
    : { issues: result.error.issues.map(({ code, path: p, message }) => ({ code, path: p, message })) };
}

describe('a pipeline checked with its kind alone', () => {
  for (const example of readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml'))) {
    // As the loader hands it over: ${VAR} references expanded (results.yaml's destination has one).
    const text = readFileSync(path.join(EXAMPLES, example), 'utf8').replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
    const data = parseYaml(text) as Data;
    for (const [what, mistake] of MISTAKES) {
      it(`${example}, ${what}: the same outcome as the union of every kind`, () => {
        const input = mistake(data);
        const union = outcome(pipelineSchema().safeParse(structuredClone(input)));
        const own = outcome(pipelineSchemaFor(input).safeParse(structuredClone(input), { jitless: true }));
        expect(own).toEqual(union);
        // A results pipeline may leave its request out (every field has a default).
        const valid = what === 'as written' || (what === 'request missing' && data['kind'] === 'results');
        expect(union).toHaveProperty(valid ? 'data' : 'issues');
      });
    }
  }
});
