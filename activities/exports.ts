// The last step of a run: the pipeline's CSV exports (export/ module), written from the destination database.
import { Context } from '@temporalio/activity';
import { exportTables } from '../export/csv.js';
import type { ActivityDeps } from './deps.js';
import type { ExportsInput, ExportsOutput } from './types.js';

export function exportActivities(deps: ActivityDeps) {
  return {
    async runExports(input: ExportsInput): Promise<ExportsOutput> {
      const { spec } = input;
      const db = await deps.destination(spec.destination.database);
      const files: ExportsOutput['files'] = [];
      for (const e of spec.exports) {
        const written = await exportTables(db, {
          pipeline: spec.name,
          // [] means every table holding this pipeline's rows, which is what the kind writes.
          tables: e.tables,
          outDir: e.dir,
          mode: e.mode,
          delimiter: e.delimiter,
          bom: e.bom,
          nullText: e.null_text,
          fileName: e.file_name,
          neutralizeFormulas: e.neutralize_formulas,
          signal: Context.current().cancellationSignal,
        });
        for (const f of written) files.push({ table: f.table, file: f.file, rows: f.rows });
        Context.current().heartbeat();
      }
      return { files };
    },
  };
}
