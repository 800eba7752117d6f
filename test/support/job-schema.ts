// The job-board data schema most tests send: the spec's six job properties, salary typed as a number.
import type { JobDataSchema } from '../../client/schemas.js';

export const JOB_SCHEMA = {
  type: 'array',
  description: 'job postings on the page',
  items: {
    type: 'object',
    description: 'one job posting',
    properties: {
      job_title: { type: 'string', description: 'job name' },
      job_url: { type: 'string', description: 'URL of the job' },
      job_location: { type: 'string', description: 'location of the job' },
      job_salary: { type: 'number', description: 'salary; 0 when none is found' },
      job_type: { type: 'string', description: 'job type' },
      job_currency: { type: 'string', description: 'currency code' },
    },
    required: ['job_title', 'job_url', 'job_location', 'job_salary', 'job_type', 'job_currency'],
  },
  required: ['items'],
} satisfies JobDataSchema;

/** JOB_SCHEMA with further properties, which come back as extra columns of a record. */
export function jobSchemaWith(extra: JobDataSchema['items']['properties']): JobDataSchema {
  return { ...JOB_SCHEMA, items: { ...JOB_SCHEMA.items, properties: { ...JOB_SCHEMA.items.properties, ...extra } } };
}
