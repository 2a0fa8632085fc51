/**
 * A profile's credentials, in the order AWS SDK for JavaScript v3 tries a profile's settings: SSO
 * first for the selected profile (its `fromSSO` runs before `fromIni`), then role assumption
 * (`role_arn` with `source_profile` or `credential_source`), static keys, web identity
 * (`web_identity_token_file`), `credential_process`, and SSO. A `source_profile` hop takes its static
 * keys before its own role, as the AWS CLI does, so a chain of roles ends at keys.
 */

import { readFileSync } from "node:fs";
import type { AwsChainOptions } from "./aws-chain-options.js";
import type { AwsProfile, AwsSharedFiles } from "./aws-config-files.js";
import { processCredentials } from "./aws-credential-process.js";
import { containerCredentials, instanceCredentials } from "./aws-metadata-credentials.js";
import type { AwsCredentials } from "./aws-sigv4.js";
import { isSsoProfile, ssoCredentials } from "./aws-sso.js";
import { assumeRole, assumeRoleWithWebIdentity, type StsContext } from "./aws-sts.js";

/** What resolving a profile needs: the chain's options, the parsed files, and STS's region. */
export interface ProfileContext {
  options: AwsChainOptions;
  env: Record<string, string | undefined>;
  files: AwsSharedFiles;
  region: string;
}

/**
 * The credentials of profile `name`; undefined when the selected profile does not exist or holds no
 * credential settings (the chain goes on), an error when it holds some that fail.
 */
export async function profileCredentials(
  name: string,
  context: ProfileContext,
  visited: ReadonlySet<string> = new Set(),
): Promise<AwsCredentials | undefined> {
  const profile = context.files.profiles.get(name);
  if (!profile) {
    if (visited.size === 0) return undefined;
    throw new Error(
      `AWS profile "${[...visited].at(-1)}" names source_profile ${name}, which does not exist`,
    );
  }
  const hop = visited.size > 0;
  if (hop && hasStaticKeys(profile)) return staticKeys(profile);
  if (!hop && isSsoProfile(profile)) return ssoCredentials(name, profile, context.files, ssoContext(context));
  if (profile.role_arn && (profile.source_profile || profile.credential_source))
    return assumedRole(name, profile, context, visited);
  if (hasStaticKeys(profile)) return staticKeys(profile);
  if (profile.web_identity_token_file && profile.role_arn)
    return webIdentity(profile.web_identity_token_file, profile.role_arn, profile.role_session_name, context);
  if (profile.credential_process)
    return processCredentials(profile.credential_process, name, context.options.processTimeoutMs);
  if (isSsoProfile(profile)) return ssoCredentials(name, profile, context.files, ssoContext(context));
  // The last hop of a role chain may name where its keys come from without a role of its own.
  if (hop && profile.credential_source) return credentialSource(profile.credential_source, name, context);
  if (hop) throw new Error(`AWS profile "${name}" (a source_profile) has no credentials`);
  return undefined;
}

/** Web identity from the environment (`AWS_WEB_IDENTITY_TOKEN_FILE` + `AWS_ROLE_ARN`, as on EKS). */
export function environmentWebIdentity(context: ProfileContext): Promise<AwsCredentials> | undefined {
  const { AWS_WEB_IDENTITY_TOKEN_FILE: file, AWS_ROLE_ARN: roleArn } = context.env;
  if (!file || !roleArn) return undefined;
  return webIdentity(file, roleArn, context.env.AWS_ROLE_SESSION_NAME, context);
}

function hasStaticKeys(profile: AwsProfile): boolean {
  return Boolean(profile.aws_access_key_id && profile.aws_secret_access_key);
}

function staticKeys(profile: AwsProfile): AwsCredentials {
  return {
    accessKeyId: profile.aws_access_key_id,
    secretAccessKey: profile.aws_secret_access_key,
    sessionToken: profile.aws_session_token || undefined,
  };
}

async function assumedRole(
  name: string,
  profile: AwsProfile,
  context: ProfileContext,
  visited: ReadonlySet<string>,
): Promise<AwsCredentials> {
  // The code would have to be asked for mid-call, which nothing in a model call can do.
  if (profile.mfa_serial)
    throw new Error(
      `AWS profile "${name}" needs an MFA code (mfa_serial), which Goat cannot ask for; export credentials with \`aws configure export-credentials --profile ${name} --format env\` and run again`,
    );
  const seen = new Set(visited).add(name);
  let source: AwsCredentials | undefined;
  if (profile.source_profile) {
    // A profile may name itself to take its own static keys (the CLI allows it); any other loop is a cycle.
    if (profile.source_profile !== name && seen.has(profile.source_profile))
      throw new Error(`AWS profiles form a cycle through source_profile: ${[...seen].join(" → ")}`);
    source =
      profile.source_profile === name && hasStaticKeys(profile)
        ? staticKeys(profile)
        : await profileCredentials(profile.source_profile, context, seen);
  } else {
    source = await credentialSource(profile.credential_source, name, context);
  }
  if (!source) throw new Error(`AWS profile "${name}" found no source credentials for its role`);
  const duration = Number.parseInt(profile.duration_seconds ?? "", 10);
  return assumeRole(
    source,
    {
      roleArn: profile.role_arn,
      roleSessionName: profile.role_session_name || defaultSessionName(),
      externalId: profile.external_id || undefined,
      durationSeconds: Number.isFinite(duration) ? duration : undefined,
    },
    stsContext(context),
  );
}

/** `credential_source`: the keys of the environment, the container or the instance. */
function credentialSource(source: string, name: string, context: ProfileContext): Promise<AwsCredentials> {
  const { env, options } = context;
  if (source === "Environment") {
    if (!env.AWS_ACCESS_KEY_ID || !env.AWS_SECRET_ACCESS_KEY)
      throw new Error(`AWS profile "${name}" takes its credentials from the environment, which has none`);
    return Promise.resolve({
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      sessionToken: env.AWS_SESSION_TOKEN || undefined,
    });
  }
  if (source === "EcsContainer") {
    if (!env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI && !env.AWS_CONTAINER_CREDENTIALS_FULL_URI)
      throw new Error(
        `AWS profile "${name}" takes its credentials from the container, but AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and _FULL_URI are unset`,
      );
    return containerCredentials({ ...options, env });
  }
  if (source === "Ec2InstanceMetadata") return instanceCredentials({ ...options, env });
  throw new Error(
    `AWS profile "${name}" has credential_source ${source}; expected Environment, EcsContainer or Ec2InstanceMetadata`,
  );
}

async function webIdentity(
  tokenFile: string,
  roleArn: string,
  sessionName: string | undefined,
  context: ProfileContext,
): Promise<AwsCredentials> {
  let token: string;
  try {
    // Read at every resolution: EKS rotates the projected token file.
    token = readFileSync(tokenFile, "utf8").trim();
  } catch (err) {
    throw new Error(`the web identity token file ${tokenFile} is not readable (${(err as Error).message})`);
  }
  return assumeRoleWithWebIdentity(
    { roleArn, roleSessionName: sessionName || defaultSessionName(), webIdentityToken: token },
    stsContext(context),
  );
}

function defaultSessionName(): string {
  return `goat-${Date.now()}`;
}

function stsContext(context: ProfileContext): StsContext {
  return { env: context.env, region: context.region, proxy: context.options.proxy };
}

function ssoContext(context: ProfileContext) {
  return { env: context.env, home: context.options.home, proxy: context.options.proxy };
}
