// A pipeline file is checked with the schemas its content needs, built at their first use (lib/built-once.ts):
// its own kind's request section, and the check and watch types only when it lists checks or watches. The other
// kinds' request schemas and the unused check types are never built, which is start-up work `pipelines` and
// `validate` no longer do (issue #39). builtOnce is wrapped here to see which values were built, and when.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

const built = vi.hoisted(() => new Set<unknown>());

vi.mock('../../../lib/built-once.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../lib/built-once.js')>();
  return {
    builtOnce: <T>(build: () => T) =>
      real.builtOnce(() => {
        const value = build();
        built.add(value);
        return value;
      }),
  };
});

const { builtOnce } = await import('../../../lib/built-once.js');
const { parsePipelineText } = await import('../../../pipelines/loader.js');
const { KINDS } = await import('../../../kinds/index.js');
const { CHECKS, WATCHES } = await import('../../../checks/registry.js');
const { PIPELINE_KINDS } = await import('../../../pipelines/spec.js');

const EXAMPLES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'pipelines', 'examples');

/** Whether reading `get()` builds something not built before. */
function buildsOnRead(get: () => unknown): boolean {
  const before = built.size;
  const value = get();
  return built.size > before && built.has(value);
}

describe('schemas built at their first use', () => {
  it('builtOnce runs its builder at the first call only, and keeps what it built (undefined too)', () => {
    const build = vi.fn(() => undefined);
    const get = builtOnce(build);
    expect(build).not.toHaveBeenCalled();
    expect(get()).toBeUndefined();
    expect(get()).toBeUndefined();
    expect(build).toHaveBeenCalledTimes(1);
  });

  it("a job-board file without checks builds its own kind's request schema and no other kind's, and no check type", () => {
    const text = readFileSync(path.join(EXAMPLES, 'job-board.yaml'), 'utf8');
    expect(text).not.toMatch(/^(checks|watch):/m);
    const spec = parsePipelineText(text, 'job-board.yaml', { env: {} });
    expect(spec.kind).toBe('job-board');

    expect(buildsOnRead(() => KINDS['job-board'].request)).toBe(false);
    expect(built.has(KINDS['job-board'].request)).toBe(true);
    for (const kind of PIPELINE_KINDS.filter((k) => k !== 'job-board'))
      expect(
        buildsOnRead(() => KINDS[kind].request),
        kind,
      ).toBe(true);
    for (const check of Object.values(CHECKS))
      expect(
        buildsOnRead(() => check.schema),
        check.type,
      ).toBe(true);
    for (const watch of Object.values(WATCHES))
      expect(
        buildsOnRead(() => watch.schema),
        watch.type,
      ).toBe(true);
    // Built once: a second read gives the same schema.
    expect(KINDS.pdf.request).toBe(KINDS.pdf.request);
    expect(CHECKS.unique.schema).toBe(CHECKS.unique.schema);
  });
});
