// The settings of an S3-compatible target beyond what the AWS SDK's standard chain reads itself. Credentials and
// region come from that chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, AWS_PROFILE and the
// shared files, web identity, container and instance roles; AWS_REGION), as for every AWS tool; these name a store
// other than AWS's (SeaweedFS, Ceph, R2, MinIO) and how the upload is cut into parts. Their one definition, checks
// and defaults are in settings/definition.ts.
import type { Settings } from '../../settings/settings.js';

export interface S3Settings {
  /** A store other than AWS's (SCRAPE_ETL_S3_ENDPOINT; the SDK reads its own AWS_ENDPOINT_URL_S3 itself). */
  endpoint: string | undefined;
  /** The region; us-east-1 for a store of one's own with none set; undefined: the SDK's chain. */
  region: string | undefined;
  /** The bucket in the path, not the host name: by default with a store of one's own. */
  forcePathStyle: boolean;
  /** The size of one part of a multipart upload, in bytes. */
  partBytes: number;
  /** Parts uploaded at once; memory is about this times the part size. */
  partsInFlight: number;
}

export function s3Settings(s: Settings): S3Settings {
  const endpoint = s.s3Endpoint?.trim() || undefined;
  const sdkEndpoint = s.awsEndpointUrlS3 ?? s.awsEndpointUrl;
  const ownStore = endpoint !== undefined || (sdkEndpoint !== undefined && sdkEndpoint !== '');
  const region =
    s.s3Region?.trim() || s.awsRegion?.trim() || s.awsDefaultRegion?.trim() || (ownStore ? 'us-east-1' : undefined);
  return {
    endpoint,
    region,
    forcePathStyle: s.s3PathStyle ?? ownStore,
    partBytes: s.s3PartMb * 1024 * 1024,
    partsInFlight: s.s3PartsInFlight,
  };
}
