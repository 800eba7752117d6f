// `scrape-etl pipelines`: the project's pipelines (the files its `pipelines:` globs match), each with its kind,
// file, destination (password redacted), schedule as the file says it, and its last run as the destination's
// pipeline_runs records it. Read-only, like `status`: never starts Temporal, never creates a database (a pipeline
// whose database does not exist yet has not run). A file that does not load is listed with its error.
import type { Command } from '../../vendor/commander.js';
import { runStateWithReason } from '../../lib/run-states.js';
import { statusWithKeptOut } from '../../lib/run-figures.js';

interface PipelinesFlags {
  json?: boolean;
}

export interface PipelineListing {
  name: string | null;
  kind: string | null;
  /** The file, relative to the project root. */
  file: string;
  /** The destination as the pipeline resolves it, with any password as ***. */
  destination: string | null;
  schedule: { cron: string; timezone: string; paused: boolean } | null;
  lastRun: {
    status: string;
    /** Why it ended as it did ('budget'; lib/run-states.ts), null when its status says it all: as `status` has it. */
    statusReason: string | null;
    /** Values its loads kept out of their columns (pipeline_runs.kept_out), null when not counted: as `status`. */
    keptOut: number | null;
    workflowId: string;
    startedAt: string | null;
    finishedAt: string | null;
  } | null;
  /** Why lastRun is null or unknown, when it is not simply "never ran" in an existing database. */
  lastRunNote?: string;
  /** The file's error (it does not load); the other fields are then null. */
  error?: string;
}

export function register(program: Command): void {
  program
    .command('pipelines')
    .description(
      "the project's pipelines: name, kind, file, destination, schedule and last run (read-only; starts nothing)",
    )
    .option(
      '--json',
      'one JSON object per pipeline (name, kind, file, destination, schedule, lastRun, lastRunNote, error)',
    )
    .action(async (flags: PipelinesFlags) => {
      const path = await import('node:path');
      const fs = await import('node:fs');
      const { currentProject, PROJECT_FILE } = await import('../project.js');
      const project = await currentProject();
      if (!project) {
        throw Object.assign(
          new Error(
            `no project file (${PROJECT_FILE}) here or above: \`pipelines\` lists a project's pipelines; create one with \`scrape-etl init\`, or run it in the project's folder`,
          ),
          { exitCode: 2 },
        );
      }
      const { projectPipelineFiles, readPipelineHeads } = await import('../resolve-pipeline.js');
      const { loadPipelineFile } = await import('../../pipelines/loader.js');
      const { redactDatabaseUrl, destinationKey } = await import('../../db/model/url.js');
      const listings: Array<PipelineListing & { databaseUrl?: string }> = [];
      for (const full of await projectPipelineFiles(project)) {
        const file = path.relative(project.root, full) || full;
        try {
          const spec = await loadPipelineFile(full);
          listings.push({
            name: spec.name,
            kind: spec.kind,
            file,
            destination: redactDatabaseUrl(spec.destination.database),
            schedule: spec.schedule
              ? { cron: spec.schedule.cron, timezone: spec.schedule.timezone, paused: spec.schedule.paused }
              : null,
            lastRun: null,
            databaseUrl: spec.destination.database,
          });
        } catch (err) {
          // A file that does not load is still named by its `name:` where its YAML has one (read only then: a file
          // that loads names itself).
          const [head] = await readPipelineHeads([full]);
          listings.push({
            name: head?.name ?? null,
            kind: null,
            file,
            destination: null,
            schedule: null,
            lastRun: null,
            error: (err as Error).message.split('\n')[0]!,
          });
        }
      }

      // Last runs, one read per destination; a database that does not exist is not created (nothing ran into it).
      const { databaseFile, readDestination } = await import('../read-destination.js');
      const { selectPipelineRuns } = await import('../../db/store/pipeline-runs.js');
      const byDestination = new Map<string, Array<PipelineListing & { databaseUrl?: string }>>();
      for (const l of listings) {
        if (l.databaseUrl === undefined) continue;
        const key = destinationKey(l.databaseUrl);
        byDestination.set(key, [...(byDestination.get(key) ?? []), l]);
      }
      let unreadable = 0;
      for (const group of byDestination.values()) {
        const url = group[0]!.databaseUrl!;
        const file = databaseFile(url);
        if (file !== undefined && !fs.existsSync(file)) {
          for (const l of group) l.lastRunNote = 'never run: its database does not exist yet';
          continue;
        }
        try {
          const last = await readDestination(url, async (r) => {
            const out = new Map<string, Awaited<ReturnType<typeof selectPipelineRuns>>[number]>();
            for (const name of new Set(group.map((l) => l.name!))) {
              const [row] = await selectPipelineRuns(r, { limit: 1, pipeline: name });
              if (row) out.set(name, row);
            }
            return out;
          });
          const { goneLoadOwner } = await import('../../db/store/orphaned-runs.js');
          for (const l of group) {
            const row = last.get(l.name!);
            // A `load` whose process is gone left its row `running`: shown as `status` shows it, interrupted.
            const status = row && goneLoadOwner(row.workflowId, row.status) !== undefined ? 'interrupted' : row?.status;
            if (row)
              l.lastRun = {
                status: status!,
                statusReason: row.statusReason,
                keptOut: row.keptOut,
                workflowId: row.workflowId,
                startedAt: row.startedAt || null,
                finishedAt: row.finishedAt,
              };
          }
        } catch (err) {
          unreadable++;
          for (const l of group) l.lastRunNote = `destination not readable: ${(err as Error).message.split('\n')[0]}`;
        }
      }

      const out: PipelineListing[] = listings.map(({ databaseUrl: _url, ...l }) => l);
      if (flags.json) {
        for (const l of out) process.stdout.write(`${JSON.stringify(l)}\n`);
      } else if (out.length === 0) {
        process.stdout.write(
          `no pipeline files match ${project.pipelines.join(', ')} in ${project.root} (the 'pipelines:' of ${project.file})\n`,
        );
      } else {
        const table = [
          ['NAME', 'KIND', 'FILE', 'DESTINATION', 'SCHEDULE', 'LAST RUN', 'LAST RUN STARTED'],
          ...out.map((l) => [
            l.name ?? '-',
            l.kind ?? '-',
            l.file,
            l.destination ?? '-',
            l.schedule ? `${l.schedule.cron} ${l.schedule.timezone}${l.schedule.paused ? ' (paused)' : ''}` : '-',
            l.error
              ? 'invalid file'
              : l.lastRun
                ? // The words `status` and `history` print for the same run (lib/run-states.ts, lib/run-figures.ts).
                  statusWithKeptOut(runStateWithReason(l.lastRun.status, l.lastRun.statusReason), l.lastRun.keptOut)
                : l.lastRunNote?.startsWith('destination not readable')
                  ? 'unknown'
                  : 'never run',
            l.lastRun?.startedAt ?? '-',
          ]),
        ];
        const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
        for (const row of table)
          process.stdout.write(
            `${row
              .map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!)))
              .join('  ')
              .trimEnd()}\n`,
          );
        const { shellWord, toolCommand } = await import('../next-steps.js');
        for (const l of out) {
          if (l.error)
            process.stdout.write(
              `${l.file}: ${l.error} (\`${toolCommand()} validate ${shellWord(path.join(project.root, l.file))}\` says more)\n`,
            );
          else if (l.lastRunNote?.startsWith('destination not readable'))
            process.stdout.write(`${l.name}: ${l.lastRunNote}\n`);
        }
      }
      // The list is printed whole; the code says what needs fixing: an invalid file (2), a destination unreadable (1).
      if (out.some((l) => l.error !== undefined)) process.exitCode = 2;
      else if (unreadable > 0) process.exitCode = 1;
    });
}
