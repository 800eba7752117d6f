// `scrape-etl up --console`: the local read-only console (console/server.ts) beside up's workers, over the
// destinations of the project's pipelines (or the default database outside a project), on 127.0.0.1 and a free port.
import { EXIT } from '../../lib/exit-codes.js';
import type { UpService } from './services.js';

export const consoleService: UpService = {
  async start(ctx) {
    const { currentProject } = await import('../project.js');
    const { resolvePipelineFiles } = await import('../resolve-pipeline.js');
    const { consoleDatabases } = await import('../../console/targets.js');
    const { startConsole } = await import('../../console/server.js');
    // In a project: every pipeline of it, each destination showing its own pipelines; a broken pipeline file stops
    // `up` with its file:line:col, as `validate` would, rather than a console silently showing less.
    const files = (await currentProject()) ? await resolvePipelineFiles([]) : [];
    const { databaseFile } = await import('../read-destination.js');
    const fs = await import('node:fs');
    // A destination no run has created yet has nothing to show: said on up's output, the others are served.
    const databases = (await consoleDatabases({ files })).filter((d) => {
      const file = databaseFile(d.url);
      if (file === undefined || fs.existsSync(file)) return true;
      ctx.log(
        `console: ${file} does not exist yet (no run has loaded into it); restart up with --console after the first run to see it`,
      );
      return false;
    });
    if (databases.length === 0)
      throw Object.assign(
        new Error(
          '--console: no destination database exists yet; run a pipeline first (scrape-etl run <pipeline>), then start up --console',
        ),
        { exitCode: EXIT.failed },
      );
    const running = await startConsole({ databases, ...(ctx.uiUrl ? { temporalUiUrl: ctx.uiUrl } : {}) });
    return { describe: `console: ${running.url}`, close: () => running.close() };
  },
};
