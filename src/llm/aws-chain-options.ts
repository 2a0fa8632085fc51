/**
 * Where the AWS credential chain looks (aws-credentials.ts), in a file of its own so the chain's
 * sources can take it without importing the chain.
 */

/** Where the chain looks; every field has the SDKs' default. */
export interface AwsChainOptions {
  env?: Record<string, string | undefined>;
  /** The home directory holding `.aws/` (default: the user's). */
  home?: string;
  /** The container credentials host for `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` (default 169.254.170.2). */
  containerHost?: string;
  /** Each metadata request's limit (default 1 s, as the SDKs). */
  metadataTimeoutMs?: number;
  /** How long a profile's `credential_process` may run (default 60 s). */
  processTimeoutMs?: number;
  /** The proxy setting for STS and the SSO portal (the metadata servers are always reached directly). */
  proxy?: string | false;
}
