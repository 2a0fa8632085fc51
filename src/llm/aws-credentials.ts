/**
 * AWS credentials and region from the standard chain, in the order of AWS SDK for JavaScript v3's
 * default provider (what Claude Code uses):
 *
 * 1. the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), skipped when
 *    `AWS_PROFILE` is set (the SDK then goes to the profile first);
 * 2. the selected profile of the shared files (aws-profile-credentials.ts): SSO, role assumption
 *    through STS, static keys, web identity, `credential_process`;
 * 3. web identity from the environment (`AWS_WEB_IDENTITY_TOKEN_FILE` + `AWS_ROLE_ARN`, EKS's IRSA);
 * 4. the container credentials endpoint (ECS, EKS Pod Identity), else the EC2 instance metadata
 *    service (IMDSv2) unless `AWS_EC2_METADATA_DISABLED=true` (aws-metadata-credentials.ts).
 *
 * Temporary credentials are cached and fetched again five minutes before they expire; concurrent calls
 * share one fetch. Not covered: `mfa_serial` on a role profile (there is no prompt to ask for the code)
 * and the refresh of an expired SSO token through SSO-OIDC (the error says to run `aws sso login`).
 */
import type { AwsChainOptions } from "./aws-chain-options.js";
import { readSharedFiles, selectedProfile } from "./aws-config-files.js";
import { containerCredentials, instanceCredentials } from "./aws-metadata-credentials.js";
import { environmentWebIdentity, profileCredentials } from "./aws-profile-credentials.js";
import type { AwsCredentials } from "./aws-sigv4.js";

export type { AwsChainOptions } from "./aws-chain-options.js";

/** A cached source of credentials. */
export interface AwsCredentialSource {
  /** Valid credentials, fetched again when they are within five minutes of expiring. */
  get(): Promise<AwsCredentials>;
  /** The cached credentials while they are fresh, else undefined (then call `get`). */
  peek(): AwsCredentials | undefined;
  /** Forgets the cached credentials (the server refused them): the next `get` resolves the chain again. */
  invalidate(): void;
}

const REFRESH_MARGIN_MS = 5 * 60_000;

/** The chain as a cached source. */
export function createAwsCredentialChain(options: AwsChainOptions = {}): AwsCredentialSource {
  let current: AwsCredentials | undefined;
  let pending: Promise<AwsCredentials> | undefined;
  const fresh = (c: AwsCredentials | undefined): c is AwsCredentials =>
    c !== undefined && (!c.expiration || c.expiration.getTime() - Date.now() > REFRESH_MARGIN_MS);
  return {
    get() {
      if (fresh(current)) return Promise.resolve(current);
      pending ??= resolveChain(options).then(
        (c) => {
          current = c;
          pending = undefined;
          return c;
        },
        (err) => {
          pending = undefined;
          throw err;
        },
      );
      return pending;
    },
    peek: () => (fresh(current) ? current : undefined),
    invalidate() {
      current = undefined;
    },
  };
}

/** The region: `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`, else `us-east-1`. */
export function awsRegion(options: AwsChainOptions = {}): string {
  const env = options.env ?? process.env;
  if (env.AWS_REGION || env.AWS_DEFAULT_REGION) return (env.AWS_REGION || env.AWS_DEFAULT_REGION) as string;
  return readSharedFiles(env, options.home).profiles.get(selectedProfile(env))?.region || "us-east-1";
}

async function resolveChain(options: AwsChainOptions): Promise<AwsCredentials> {
  const env = options.env ?? process.env;
  if (!env.AWS_PROFILE && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    return {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      sessionToken: env.AWS_SESSION_TOKEN || undefined,
    };
  }
  const context = { options, env, files: readSharedFiles(env, options.home), region: awsRegion(options) };
  const fromProfile = await profileCredentials(selectedProfile(env), context);
  if (fromProfile) return fromProfile;
  const fromWebIdentity = environmentWebIdentity(context);
  if (fromWebIdentity) return fromWebIdentity;
  if (env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI || env.AWS_CONTAINER_CREDENTIALS_FULL_URI)
    return containerCredentials(options);
  if ((env.AWS_EC2_METADATA_DISABLED ?? "").toLowerCase() !== "true") {
    try {
      return await instanceCredentials(options);
    } catch (err) {
      throw new Error(
        `no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with ~/.aws/credentials, or run where container or instance credentials are served (the instance metadata service said: ${(err as Error).message})`,
      );
    }
  }
  throw new Error(
    "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with ~/.aws/credentials",
  );
}
