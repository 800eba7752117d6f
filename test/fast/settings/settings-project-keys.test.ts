// The project file's setting keys are the definition's (settings/definition.ts `project`): the file's schema
// (cli/project-schema.ts, which words its problems) accepts exactly those under `temporal:` and `worker:` and at the
// top, beside `pipelines`, which is the project's own and no setting.
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../../settings/definition.js';
import { projectSchema } from '../../../cli/project-schema.js';
import { projectOf } from '../../../cli/project-quick.js';

describe('project file keys', () => {
  it('are the settings that declare one, and no other', () => {
    const declared = (Object.values(SETTINGS) as Array<{ project?: string }>)
      .flatMap((d) => (d.project ? [d.project] : []))
      .sort();
    const shape = projectSchema.shape;
    const schemaKeys = Object.entries(shape)
      .flatMap(([k, v]) =>
        'unwrap' in v && 'shape' in (v.unwrap() as object)
          ? Object.keys((v.unwrap() as { shape: object }).shape).map((inner) => `${k}.${inner}`)
          : [k],
      )
      // `pipelines` and `budget` are the project's own sections, no settings.
      .filter((k) => k !== 'pipelines' && k !== 'budget' && !k.startsWith('budget.'))
      .sort();
    expect(schemaKeys).toEqual(declared);
  });

  it("give their settings the file's values, paths made the project folder's", () => {
    const project = projectOf(
      {
        data_dir: 'state',
        destination: 'duckdb:w.duckdb',
        worker: { url_load_group: 7 },
        temporal: { task_queue: 'q' },
      },
      '/srv/p/scrape-etl.yaml',
    );
    expect(project.settings).toEqual({
      SCRAPE_ETL_DATA_DIR: '/srv/p/state',
      DATABASE_URL: 'duckdb:/srv/p/w.duckdb',
      SCRAPE_ETL_URL_LOAD_GROUP: '7',
      TEMPORAL_TASK_QUEUE: 'q',
    });
    expect(projectOf({}, '/srv/p/scrape-etl.yaml').settings).toEqual({
      SCRAPE_ETL_DATA_DIR: '/srv/p/data',
      DATABASE_URL: 'sqlite:/srv/p/data/scrape-etl.sqlite',
    });
  });
});
