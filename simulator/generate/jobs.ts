// Job-board records (endpoint 1). Records are typed by the request's schema: every property of
// schema.items.properties is generated, with the JSON type the schema declares.
import { rngFor, type Rng } from '../random.js';
import type { JobSchemaProperty } from '../validate.js';
import { CITIES, COMPANIES, JOB_ROLES, JOB_TYPES, LOREM, SENIORITY, words } from './words.js';

export type JobRecordValue = string | number | boolean | null | JobRecordValue[] | { [k: string]: JobRecordValue };
export type GeneratedJobRecord = Record<string, JobRecordValue>;

/**
 * Records for one listing URL: min + (hash(seed, url) mod (max - min + 1)). Depends only on the seed, the URL
 * and the bounds, so the same URL always yields the same count.
 */
export function jobRecordCount(seed: number, url: string, min: number, max: number): number {
  return rngFor(seed, 'job-count', url).int(min, max);
}

export function generateJobRecords(
  seed: number,
  url: string,
  properties: Record<string, JobSchemaProperty>,
  min: number,
  max: number,
): GeneratedJobRecord[] {
  const count = jobRecordCount(seed, url, min, max);
  const origin = safeOrigin(url);
  const out: GeneratedJobRecord[] = [];
  for (let i = 0; i < count; i++) {
    const rng = rngFor(seed, 'job', url, i);
    // One coherent job per index: location and currency agree, the url is unique within the listing.
    const place = rng.pick(CITIES);
    const ctx: JobContext = {
      rng,
      title: `${rng.pick(SENIORITY)}${rng.pick(JOB_ROLES)}`,
      company: rng.pick(COMPANIES),
      location: place.city === 'Remote' ? 'Remote' : `${place.city}, ${place.country}`,
      currency: place.currency,
      url: `${origin}/jobs/${rng.hex(12)}-${i + 1}`,
      salary:
        place.currency === 'IDR'
          ? rng.int(8, 60) * 1_000_000
          : place.currency === 'JPY'
            ? rng.int(40, 150) * 100_000
            : rng.int(60, 360) * 500,
      hasSalary: rng.chance(0.8),
    };
    const record: GeneratedJobRecord = {};
    for (const [name, prop] of Object.entries(properties)) record[name] = valueFor(name, prop, ctx, 0);
    out.push(record);
  }
  return out;
}

/** Usage reported per call: a deterministic function of the URLs and their record counts. */
export function jobTokenUsage(seed: number, urls: readonly string[], counts: readonly number[]): number {
  let total = 0;
  urls.forEach((u, i) => {
    total += 800 + (counts[i] ?? 0) * 145 + rngFor(seed, 'job-tokens', u).int(0, 99);
  });
  return total;
}

interface JobContext {
  rng: Rng;
  title: string;
  company: string;
  location: string;
  currency: string;
  url: string;
  salary: number;
  hasSalary: boolean;
}

function schemaType(prop: JobSchemaProperty): string {
  const t = prop.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const firstNonNull = t.find((x) => typeof x === 'string' && x !== 'null');
    if (typeof firstNonNull === 'string') return firstNonNull;
  }
  return 'string';
}

function valueFor(name: string, prop: JobSchemaProperty, ctx: JobContext, depth: number): JobRecordValue {
  const type = schemaType(prop);
  const rng = ctx.rng;
  if (Array.isArray(prop.enum) && prop.enum.length > 0) {
    const choice = rng.pick(prop.enum);
    if (choice === null || ['string', 'number', 'boolean'].includes(typeof choice)) return choice as JobRecordValue;
  }
  const lower = name.toLowerCase();
  switch (type) {
    case 'number':
    case 'integer': {
      if (lower.includes('salary')) return ctx.hasSalary ? ctx.salary : 0;
      if (type === 'integer') return rng.int(0, 1000);
      return rng.float(0, 1000, 2);
    }
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'array': {
      const items =
        typeof prop.items === 'object' && prop.items !== null ? (prop.items as JobSchemaProperty) : { type: 'string' };
      const n = depth > 2 ? 0 : rng.int(0, 3);
      const arr: JobRecordValue[] = [];
      for (let k = 0; k < n; k++) arr.push(valueFor(`${name}_${k}`, items, ctx, depth + 1));
      return arr;
    }
    case 'object': {
      const obj: Record<string, JobRecordValue> = {};
      if (depth <= 2 && typeof prop.properties === 'object' && prop.properties !== null) {
        for (const [k, p] of Object.entries(prop.properties as Record<string, JobSchemaProperty>)) {
          obj[k] = valueFor(k, typeof p === 'object' && p !== null ? p : {}, ctx, depth + 1);
        }
      }
      return obj;
    }
    default:
      return stringFor(lower, prop, ctx);
  }
}

function stringFor(lower: string, prop: JobSchemaProperty, ctx: JobContext): string {
  const rng = ctx.rng;
  if (lower === 'job_title' || lower.endsWith('title')) return ctx.title;
  if (lower === 'job_url' || lower.endsWith('url') || prop.format === 'uri') return ctx.url;
  if (lower.includes('location')) return ctx.location;
  if (lower.includes('currency')) return ctx.currency;
  if (lower.includes('salary')) {
    if (!ctx.hasSalary) return '';
    const hi = Math.round(ctx.salary * 1.3);
    return `${ctx.currency} ${ctx.salary.toLocaleString('en-US')} - ${hi.toLocaleString('en-US')} a year`;
  }
  if (lower === 'job_type' || lower.endsWith('type')) return rng.pick(JOB_TYPES);
  if (lower.includes('company') || lower.includes('employer')) return ctx.company;
  if (lower.includes('email')) return `jobs@${ctx.company.toLowerCase().replace(/[^a-z]+/g, '')}.example`;
  if (lower.includes('date') || prop.format === 'date' || prop.format === 'date-time') {
    const d = new Date(Date.UTC(2026, 0, 1) + rng.int(0, 320) * 86_400_000).toISOString();
    return prop.format === 'date-time' ? d : d.slice(0, 10);
  }
  return words(() => rng.pick(LOREM), rng.int(3, 9));
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'https://jobs.example';
  }
}
