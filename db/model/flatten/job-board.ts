// Job-board response -> job_records. The record shape follows the request's schema: the six spec properties
// get typed columns; anything else the schema asked for becomes an inferred column of job_records (db/store/evolve/).
import { hexDigest } from '../hash.js';
import { stringifyJson } from '../../../lib/json.js';
import type { JobBoardResponse, JobRecord } from '../../../client/schemas.js';
import { TABLE_META } from '../tables.js';
import { asDouble, asText, isRecord, OPEN_FIELDS, openFields, push, type RowsByTable } from './values.js';

const JOB_TYPED = new Set(['job_title', 'job_url', 'job_location', 'job_salary', 'job_type', 'job_currency']);

/** Key order must not change a record's identity, so hashing uses sorted keys at every level. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical(value[k])]),
    );
  }
  return value;
}

/**
 * Natural key of a job: its URL when it has one (the same posting seen again is the same row, even if its
 * text changed); otherwise a hash of the whole record, so identical URL-less records collapse into one row.
 */
export function jobKey(record: JobRecord): string {
  const url = typeof record.job_url === 'string' ? record.job_url.trim() : '';
  if (url !== '') return url;
  return `sha256:${hexDigest('sha256', stringifyJson(canonical(record)))}`;
}

const JOB_COLUMNS = new Set(TABLE_META.job_records.columns);

export function flattenJobBoard(response: JobBoardResponse): RowsByTable {
  const out: RowsByTable = {};
  for (const record of response.result) {
    const salary: unknown = record.job_salary;
    push(out, 'job_records', {
      job_key: jobKey(record),
      job_title: asText(record.job_title),
      job_url: asText(record.job_url),
      job_location: asText(record.job_location),
      // A number-typed schema lands a number, a string-typed one its text (ranges like "50k-70k" stay text).
      job_salary_number: typeof salary === 'number' || typeof salary === 'bigint' ? asDouble(salary) : null,
      job_salary_text: typeof salary === 'string' ? salary : null,
      job_type: asText(record.job_type),
      job_currency: asText(record.job_currency),
      [OPEN_FIELDS]: openFields(record, JOB_TYPED, JOB_COLUMNS),
    });
  }
  return out;
}
