// The Iceberg REST catalog calls the lake's commits need (the Apache Iceberg REST OpenAPI spec): the warehouse's
// prefix from /v1/config, OAuth2 client credentials or a bearer token, namespaces, a table's metadata, its creation
// and a commit with requirements. Bodies are parsed and written with lossless-json: snapshot ids are 64-bit (other
// writers, pyiceberg and Spark among them, draw them from the whole range) and JSON.parse would round them, making
// `assert-ref-snapshot-id` name a snapshot that does not exist. iceberg-js parses with JSON.parse, which is why this
// small client is the product's own.
import { isInteger, isSafeNumber, parse, stringify } from 'lossless-json';
import type { IcebergSchema } from './table-schema.js';

export interface CatalogSettings {
  /** Base URL, before /v1. */
  uri: string;
  warehouse?: string | undefined;
  /** `<client_id>:<client_secret>` for /v1/oauth/tokens. */
  credential?: string | undefined;
  token?: string | undefined;
}

export interface Snapshot {
  'snapshot-id': bigint | number;
  'parent-snapshot-id'?: bigint | number | null;
  'sequence-number'?: bigint | number;
  'timestamp-ms': bigint | number;
  'manifest-list': string;
  summary: Record<string, string>;
  'schema-id'?: number;
}

export interface TableMetadata {
  'format-version': number;
  'table-uuid': string;
  location: string;
  'last-sequence-number'?: bigint | number;
  'last-column-id': number;
  'current-schema-id': number;
  schemas: IcebergSchema[];
  'current-snapshot-id'?: bigint | number | null;
  snapshots?: Snapshot[];
  properties?: Record<string, string>;
  refs?: Record<string, { 'snapshot-id': bigint | number; type: string }>;
}

export type Requirement = Record<string, unknown> & { type: string };
export type Update = Record<string, unknown> & { action: string };

/** A catalog's answer other than success: the status and the error the catalog named. */
export class CatalogError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly type: string,
  ) {
    super(message);
    this.name = 'CatalogError';
  }
}

const MAX_JSON_BYTES = 64 * 1024 * 1024;

function parseJson(text: string): unknown {
  return parse(text, null, (value) => (isInteger(value) && !isSafeNumber(value) ? BigInt(value) : Number(value)));
}

export interface RestCatalog {
  readonly uri: string;
  ensureNamespace(namespace: string[]): Promise<void>;
  /** The table's metadata, or null when the catalog has no such table. */
  loadTable(namespace: string[], name: string): Promise<TableMetadata | null>;
  /** Creates the table; null when another writer created it first (409). */
  createTable(
    namespace: string[],
    name: string,
    schema: IcebergSchema,
    properties: Record<string, string>,
  ): Promise<TableMetadata | null>;
  /** Commits; throws CatalogError with status 409 when a requirement failed (another writer committed first). */
  commit(namespace: string[], name: string, requirements: Requirement[], updates: Update[]): Promise<TableMetadata>;
}

export async function openRestCatalog(settings: CatalogSettings): Promise<RestCatalog> {
  const base = settings.uri.replace(/\/+$/, '');
  let bearer = settings.token;

  const call = async (method: string, path: string, body?: unknown, form?: URLSearchParams): Promise<unknown> => {
    const url = `${base}${path}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          ...(bearer !== undefined ? { Authorization: `Bearer ${bearer}` } : {}),
          ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: stringify(body) } : form !== undefined ? { body: form } : {}),
      });
    } catch (err) {
      // Not marked 'export:': a catalog that is down or restarting is Temporal's retries' to wait for.
      throw new Error(`Iceberg catalog ${method} ${url} failed: ${(err as Error).message}`, { cause: err });
    }
    const text = await res.text();
    if (text.length > MAX_JSON_BYTES) throw new Error(`Iceberg catalog ${method} ${url}: answer over 64 MiB`);
    if (res.ok) return text === '' ? null : parseJson(text);
    let type = 'Error';
    let message = text.slice(0, 500);
    try {
      const e = (parseJson(text) as { error?: { type?: string; message?: string } }).error;
      type = e?.type ?? type;
      message = e?.message ?? message;
    } catch {
      // not JSON: the text itself is the message
    }
    throw new CatalogError(
      `Iceberg catalog ${method} ${url} answered ${res.status} ${type}: ${message}`,
      res.status,
      type,
    );
  };

  if (bearer === undefined && settings.credential !== undefined) {
    const at = settings.credential.indexOf(':');
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: settings.credential.slice(0, at),
      client_secret: settings.credential.slice(at + 1),
      scope: 'catalog',
    });
    const out = (await call('POST', '/v1/oauth/tokens', undefined, form)) as { access_token?: string };
    if (typeof out?.access_token !== 'string')
      throw new Error(
        `export: the Iceberg catalog ${base} answered /v1/oauth/tokens without an access_token; check SCRAPE_ETL_ICEBERG_CREDENTIAL`,
      );
    bearer = out.access_token;
  }

  const query = settings.warehouse !== undefined ? `?warehouse=${encodeURIComponent(settings.warehouse)}` : '';
  const config = (await call('GET', `/v1/config${query}`)) as {
    defaults?: Record<string, string>;
    overrides?: Record<string, string>;
  } | null;
  const prefix = config?.overrides?.['prefix'] ?? config?.defaults?.['prefix'];
  const root = `/v1${prefix !== undefined && prefix !== '' ? `/${encodeURIComponent(prefix)}` : ''}`;
  // The REST spec joins namespace levels with the unit separator in a path.
  const ns = (namespace: string[]) => encodeURIComponent(namespace.join('\x1f'));
  const tablePath = (namespace: string[], name: string) =>
    `${root}/namespaces/${ns(namespace)}/tables/${encodeURIComponent(name)}`;

  return {
    uri: base,
    async ensureNamespace(namespace) {
      try {
        await call('POST', `${root}/namespaces`, { namespace, properties: {} });
      } catch (err) {
        if (!(err instanceof CatalogError && err.status === 409)) throw err;
      }
    },
    async loadTable(namespace, name) {
      try {
        return ((await call('GET', tablePath(namespace, name))) as { metadata: TableMetadata }).metadata;
      } catch (err) {
        if (err instanceof CatalogError && err.status === 404) return null;
        throw err;
      }
    },
    async createTable(namespace, name, schema, properties) {
      try {
        const out = (await call('POST', `${root}/namespaces/${ns(namespace)}/tables`, {
          name,
          schema,
          properties,
          'stage-create': false,
        })) as { metadata: TableMetadata };
        return out.metadata;
      } catch (err) {
        if (err instanceof CatalogError && err.status === 409) return null;
        throw err;
      }
    },
    async commit(namespace, name, requirements, updates) {
      const out = (await call('POST', tablePath(namespace, name), { requirements, updates })) as {
        metadata: TableMetadata;
      };
      return out.metadata;
    },
  };
}
