// `job-board`: synchronous job-listing scrapes. One call per listing URL, all with the same min/max/timeout and
// data schema; each answer's records are loaded into job_records.
import { z } from 'zod';
import { builtOnce } from '../lib/built-once.js';
import type { JobBoardRequest } from '../client/index.js';
import { absoluteUrl, positiveInt, whenObject } from '../pipelines/fields.js';
import type { UrlListKind } from './types.js';

const JOB_PROPERTY_TYPES = ['string', 'number', 'integer', 'boolean'] as const;

/** The data schema sent with every job-board call: a list of objects whose properties are scalar fields. */
const jobDataSchema = () =>
  z
    .strictObject({
      type: z.literal('array'),
      description: z.string().optional(),
      items: z.strictObject({
        type: z.literal('object'),
        description: z.string().optional(),
        properties: z
          .record(
            z.string(),
            // Loose: other JSON Schema keywords on a property (format, enum, ...) are passed on to the service.
            z.looseObject({ type: z.enum(JOB_PROPERTY_TYPES), description: z.string().optional() }),
          )
          .refine((p) => Object.keys(p).length > 0, 'needs at least one property'),
        required: z.array(z.string()).optional(),
      }),
      required: z.array(z.string()).optional(),
    })
    .superRefine((schema, ctx) => {
      const props = Object.keys(schema.items.properties);
      for (const [i, name] of (schema.items.required ?? []).entries()) {
        if (!props.includes(name)) {
          ctx.addIssue({
            code: 'custom',
            path: ['items', 'required', i],
            message: `'${name}' is not one of items.properties (${props.join(', ')})`,
          });
        }
      }
    })
    // The workflow treats the schema as opaque JSON; only its shape is checked here.
    .transform((schema): Record<string, unknown> => schema);

const request = builtOnce(() =>
  z
    .strictObject({
      urls: z.array(absoluteUrl).min(1, 'needs at least one listing URL'),
      min: z.int().nonnegative(),
      max: positiveInt,
      timeout: positiveInt,
      schema: jobDataSchema(),
    })
    .superRefine((req, ctx) => {
      if (typeof req.min === 'number' && typeof req.max === 'number' && req.min > req.max) {
        ctx.addIssue({ code: 'custom', path: ['min'], message: `must not be greater than max (${req.max})` });
      }
    }, whenObject),
);

export const jobBoardKind: UrlListKind<'job-board'> = {
  kind: 'job-board',
  mode: 'url-list',
  summary: 'job listings, one synchronous call per listing URL with a data schema',
  get request() {
    return request();
  },
  defaultsRequestName: false,
  requestOptional: false,
  endpoints: ['POST /api/job-board-scrape'],
  tables: ['job_records'],
  resultTable: 'scraper_results',
  async fetch(client, req, url, o) {
    const { min, max, timeout, schema } = req;
    // The pipeline schema checked the data schema's shape; the client checks it against the API's request schema.
    const api = await client.jobBoardScrape({ urls: [url], min, max, timeout, schema } as JobBoardRequest, o);
    return { api, load: { kind: 'job-board', data: api.data } };
  },
};
