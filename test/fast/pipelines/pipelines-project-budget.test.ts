// The project file's `budget:` travels with every pipeline of the project (pipelines/project-budget.ts), read once
// per process for all of them and read again when the file changed: a long-lived process (`up`'s schedules) that
// loads pipelines again after an edit of scrape-etl.yaml gets the new limits, and a mistake added to the budget is
// still reported.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPipelineFile } from '../../../pipelines/loader.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-project-budget-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pipeline = (name: string) =>
  `name: ${name}\nkind: leads-social\nrequest: {keywords: k, sentiment_type: all, expected_data: 3}\n`;

describe("the project file's budget", () => {
  it('every pipeline of the project carries it, and a changed file is read again', async () => {
    const project = path.join(dir, 'scrape-etl.yaml');
    writeFileSync(project, 'budget:\n  calls: { day: 100 }\n');
    writeFileSync(path.join(dir, 'a.yaml'), pipeline('a'));
    writeFileSync(path.join(dir, 'b.yaml'), pipeline('b'));
    const env = {};
    const [a, b] = [
      await loadPipelineFile(path.join(dir, 'a.yaml'), { env }),
      await loadPipelineFile(path.join(dir, 'b.yaml'), { env }),
    ];
    expect(a.project_budget).toMatchObject({ calls: { day: 100 }, project: project });
    expect(b.project_budget).toEqual(a.project_budget);

    writeFileSync(project, 'budget:\n  calls: { day: 7, month: 70 }\n');
    expect((await loadPipelineFile(path.join(dir, 'a.yaml'), { env })).project_budget).toMatchObject({
      calls: { day: 7, month: 70 },
    });

    writeFileSync(project, 'destination: sqlite:data/x.sqlite\n');
    expect((await loadPipelineFile(path.join(dir, 'b.yaml'), { env })).project_budget).toBeUndefined();

    writeFileSync(project, 'budget:\n  calls: { day: -1 }\n');
    await expect(loadPipelineFile(path.join(dir, 'a.yaml'), { env })).rejects.toThrow(/budget\.calls\.day/);
  });
});
