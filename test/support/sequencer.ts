// The order the tiers' files start in: vitest's own (files that failed last time, then the longest by its cached
// timings, else the largest), except that the files named in LONG_FIRST (test/tiers.ts) go first, so a file that
// runs for minutes never starts last and alone.
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { LONG_FIRST } from '../tiers.js';

export class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const rank = (f: TestSpecification): number => {
      const i = LONG_FIRST.indexOf(path.relative(root, f.moduleId).split(path.sep).join('/'));
      return i < 0 ? LONG_FIRST.length : i;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b));
  }
}
