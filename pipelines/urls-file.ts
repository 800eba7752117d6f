// `request.urls_file`: a URL list in a file of its own, one URL a line, in place of `request.urls`. The loader
// (pipelines/loader.ts) reads the file and puts its list in `request.urls` before the zod schema parses the
// pipeline, so the zod schema never sees the key; the JSON Schema (pipelines/json-schema.ts) is generated from the
// zod schema and then given the key by withUrlsFile below, from this one definition: wherever a kind's request has
// `urls`, a file may give `urls_file` instead (one of the two, not both), which is exactly what the loader accepts.
import { z } from 'zod';

export const URLS_FILE_KEY = 'urls_file';

/** The key's value, as the loader checks it and as the JSON Schema describes it. */
export const urlsFileField = z
  .string()
  .regex(/\S/, 'expected the path of a file with one URL a line (relative to the pipeline file)')
  .describe(
    'a file with one URL a line (relative to the pipeline file; blank lines and # comments are skipped), in place of urls',
  );

type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema of pipeline files with `urls_file` beside every `urls` of a request section: the request takes
 * either (oneOf), as the loader does. Applied to the zod-generated schema, so a kind that gains or loses `urls` in
 * its zod request gains or loses `urls_file` with it.
 */
export function withUrlsFile(schema: JsonSchema): JsonSchema {
  const field = z.toJSONSchema(urlsFileField, { io: 'input', target: 'draft-2020-12' }) as JsonSchema;
  delete field['$schema'];
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const o = Object.fromEntries(Object.entries(node as JsonSchema).map(([k, v]) => [k, visit(v)])) as JsonSchema;
    const props = o['properties'] as JsonSchema | undefined;
    const request = props?.['request'] as JsonSchema | undefined;
    const requestProps = request?.['properties'] as JsonSchema | undefined;
    if (request && requestProps && 'urls' in requestProps && !(URLS_FILE_KEY in requestProps)) {
      const required = (request['required'] as string[] | undefined) ?? [];
      const rest = required.filter((k) => k !== 'urls');
      props!['request'] = {
        ...request,
        properties: { ...requestProps, [URLS_FILE_KEY]: field },
        ...(rest.length > 0 ? { required: rest } : {}),
        oneOf: [
          { required: ['urls'], not: { required: [URLS_FILE_KEY] } },
          { required: [URLS_FILE_KEY], not: { required: ['urls'] } },
        ],
      };
      if (rest.length === 0) delete (props!['request'] as JsonSchema)['required'];
    }
    return o;
  };
  return visit(schema) as JsonSchema;
}
