/**
 * JSON Schema of pipeline files, generated from the zod schema so editors (yaml-language-server) check and
 * complete exactly what `scrape-etl validate` accepts. `npm run schema:generate` rewrites the shipped
 * pipelines/pipeline.schema.json; a test fails when the shipped file is stale.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { pipelineSchema } from './schema.js';
import { withUrlsFile } from './urls-file.js';

export const PIPELINE_JSON_SCHEMA_PATH = fileURLToPath(new URL('./pipeline.schema.json', import.meta.url));

export function pipelineJsonSchema(): Record<string, unknown> {
  // 'input': what a file may contain (defaults make keys optional), not the parsed object.
  // `request.urls_file` is read by the loader before the zod schema parses; its key is added from the same definition.
  const schema = withUrlsFile(z.toJSONSchema(pipelineSchema(), { io: 'input', target: 'draft-2020-12' }));
  return {
    ...schema,
    title: 'scrape-etl pipeline',
    description: 'One pipeline per file. ${VAR} and ${VAR:-default} references are resolved from the environment.',
  };
}

export function pipelineJsonSchemaText(): string {
  return `${JSON.stringify(pipelineJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(PIPELINE_JSON_SCHEMA_PATH, pipelineJsonSchemaText());
  process.stdout.write(`wrote ${PIPELINE_JSON_SCHEMA_PATH}\n`);
}
