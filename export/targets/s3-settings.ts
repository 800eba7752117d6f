// The settings of an S3-compatible target beyond what the AWS SDK's standard chain reads itself. Credentials and
// region come from that chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, AWS_PROFILE and the
// shared files, web identity, container and instance roles; AWS_REGION), as for every AWS tool; these name a store
// other than AWS's (SeaweedFS, Ceph, R2, MinIO) and how the upload is cut into parts.

export interface S3Settings {
  /** SCRAPE_ETL_S3_ENDPOINT (else the SDK's own AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL): a store other than AWS's. */
  endpoint: string | undefined;
  /** SCRAPE_ETL_S3_REGION, else the SDK's chain; us-east-1 for a store of one's own (an endpoint) with none set. */
  region: string | undefined;
  /** SCRAPE_ETL_S3_PATH_STYLE (true/false): bucket in the path, not the host name. Default: true with an endpoint. */
  forcePathStyle: boolean;
  /** SCRAPE_ETL_S3_PART_MB: the size of one part of a multipart upload (5 MiB or more, S3's minimum). Default 8. */
  partBytes: number;
  /** SCRAPE_ETL_S3_PARTS_IN_FLIGHT: parts uploaded at once; memory is about this times the part size. Default 4. */
  partsInFlight: number;
}

const MIN_PART_MB = 5;

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`export: ${name}=${raw} is not a whole number of at least ${min}`);
  return n;
}

export function s3Settings(env: NodeJS.ProcessEnv): S3Settings {
  const endpoint = env['SCRAPE_ETL_S3_ENDPOINT']?.trim() || undefined;
  if (endpoint !== undefined && !(URL.canParse(endpoint) && /^https?:$/.test(new URL(endpoint).protocol))) {
    throw new Error(`export: SCRAPE_ETL_S3_ENDPOINT=${endpoint} is not an http(s) URL such as http://127.0.0.1:8333`);
  }
  const sdkEndpoint = env['AWS_ENDPOINT_URL_S3'] ?? env['AWS_ENDPOINT_URL'];
  const pathStyle = env['SCRAPE_ETL_S3_PATH_STYLE']?.trim().toLowerCase();
  if (pathStyle !== undefined && pathStyle !== '' && pathStyle !== 'true' && pathStyle !== 'false') {
    throw new Error(`export: SCRAPE_ETL_S3_PATH_STYLE=${pathStyle} is not true or false`);
  }
  const ownStore = endpoint !== undefined || (sdkEndpoint !== undefined && sdkEndpoint !== '');
  const region = env['SCRAPE_ETL_S3_REGION']?.trim() || env['AWS_REGION']?.trim() || env['AWS_DEFAULT_REGION']?.trim() || (ownStore ? 'us-east-1' : undefined);
  return {
    endpoint,
    region,
    forcePathStyle: pathStyle === undefined || pathStyle === '' ? ownStore : pathStyle === 'true',
    partBytes: positive(env, 'SCRAPE_ETL_S3_PART_MB', 8, MIN_PART_MB) * 1024 * 1024,
    partsInFlight: positive(env, 'SCRAPE_ETL_S3_PARTS_IN_FLIGHT', 4),
  };
}
