/**
 * AWS credentials and region from the standard chain, in the AWS SDKs' order: the environment
 * (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), the shared credentials and config
 * files for `AWS_PROFILE`, the container credentials endpoint (ECS, EKS Pod Identity), then the EC2
 * instance metadata service (IMDSv2). Temporary credentials are cached and fetched again five minutes
 * before they expire; concurrent calls share one fetch.
 *
 * Not covered (say so rather than guess): SSO profiles, `credential_process`, and role assumption
 * (`role_arn` / `source_profile`, web identity); a profile that needs them fails with a message naming
 * the AWS CLI command that exports plain credentials instead.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { AwsCredentials } from "./aws-sigv4.js";
import { cloudRequest } from "./cloud-http.js";

/** Where the chain looks; every field has the SDKs' default. */
export interface AwsChainOptions {
  env?: Record<string, string | undefined>;
  /** The home directory holding `.aws/` (default: the user's). */
  home?: string;
  /** The container credentials host for `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` (default 169.254.170.2). */
  containerHost?: string;
  /** Each metadata request's limit (default 1 s, as the SDKs). */
  metadataTimeoutMs?: number;
}

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
  return env.AWS_REGION || env.AWS_DEFAULT_REGION || profileSection(options, "config")?.region || "us-east-1";
}

async function resolveChain(options: AwsChainOptions): Promise<AwsCredentials> {
  const env = options.env ?? process.env;
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    return {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      sessionToken: env.AWS_SESSION_TOKEN || undefined,
    };
  }
  const fromFiles = profileCredentials(options);
  if (fromFiles) return fromFiles;
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

// ---- shared files ----

/** The profile's keys from `credentials` (then `config`), undefined when it has none. */
function profileCredentials(options: AwsChainOptions): AwsCredentials | undefined {
  const creds = profileSection(options, "credentials");
  const config = profileSection(options, "config");
  for (const section of [creds, config]) {
    if (section?.aws_access_key_id && section.aws_secret_access_key) {
      return {
        accessKeyId: section.aws_access_key_id,
        secretAccessKey: section.aws_secret_access_key,
        sessionToken: section.aws_session_token || undefined,
      };
    }
  }
  const needs = ["sso_session", "sso_start_url", "credential_process", "role_arn", "web_identity_token_file"];
  const unsupported = needs.find((key) => creds?.[key] !== undefined || config?.[key] !== undefined);
  if (unsupported) {
    const profile = (options.env ?? process.env).AWS_PROFILE ?? "default";
    throw new Error(
      `the AWS profile "${profile}" uses ${unsupported}, which Goat does not resolve itself; export plain credentials with \`aws configure export-credentials --profile ${profile} --format env\` and run again`,
    );
  }
  return undefined;
}

/** The profile's section of the shared `credentials` or `config` file (`[name]` / `[profile name]`). */
function profileSection(
  options: AwsChainOptions,
  file: "credentials" | "config",
): Record<string, string> | undefined {
  const env = options.env ?? process.env;
  const profile = env.AWS_PROFILE || env.AWS_DEFAULT_PROFILE || "default";
  const home = options.home ?? homedir();
  const path =
    file === "credentials"
      ? env.AWS_SHARED_CREDENTIALS_FILE || join(home, ".aws", "credentials")
      : env.AWS_CONFIG_FILE || join(home, ".aws", "config");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const sections = parseIni(text);
  if (file === "credentials") return sections.get(profile);
  return (
    sections.get(profile === "default" ? "default" : `profile ${profile}`) ??
    sections.get(`profile ${profile}`)
  );
}

/** The INI dialect of the AWS files: `[section]`, `key = value`, `#`/`;` comments, nested blocks skipped. */
function parseIni(text: string): Map<string, Record<string, string>> {
  const sections = new Map<string, Record<string, string>>();
  let current: Record<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s+|\s+$/g, "");
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      current = {};
      sections.set(header[1], current);
      continue;
    }
    // An indented line continues a nested block (`s3 =` sub-settings): none of ours live there.
    if (!current || /^\s/.test(raw)) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    current[line.slice(0, eq).trim().toLowerCase()] = line.slice(eq + 1).trim();
  }
  return sections;
}

// ---- container and instance metadata ----

/** Credentials JSON as the container endpoint and IMDS return it. */
function readCredentialJson(text: string, source: string): AwsCredentials {
  let json: {
    AccessKeyId?: unknown;
    SecretAccessKey?: unknown;
    Token?: unknown;
    Expiration?: unknown;
  } | null;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${source} answered with something other than JSON`);
  }
  const accessKeyId = json?.AccessKeyId;
  const secretAccessKey = json?.SecretAccessKey;
  if (typeof accessKeyId !== "string" || typeof secretAccessKey !== "string")
    throw new Error(`${source} answered without AccessKeyId and SecretAccessKey`);
  const expiration = typeof json?.Expiration === "string" ? new Date(json.Expiration) : undefined;
  return {
    accessKeyId,
    secretAccessKey,
    sessionToken: typeof json?.Token === "string" ? json.Token : undefined,
    expiration: expiration && !Number.isNaN(expiration.getTime()) ? expiration : undefined,
  };
}

/** Hosts a plain-http FULL_URI may name (as the SDKs allow): loopback and the ECS/EKS agents. */
const CONTAINER_HOSTS = new Set([
  "127.0.0.1",
  "localhost",
  "[::1]",
  "169.254.170.2",
  "169.254.170.23",
  "[fd00:ec2::23]",
]);

async function containerCredentials(options: AwsChainOptions): Promise<AwsCredentials> {
  const env = options.env ?? process.env;
  const url = env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI
    ? `http://${options.containerHost ?? "169.254.170.2"}${env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI}`
    : (env.AWS_CONTAINER_CREDENTIALS_FULL_URI as string);
  const parsed = new URL(url);
  // A token sent to an arbitrary plain-http host could be read on the way: refuse, as the SDKs do.
  if (parsed.protocol === "http:" && !CONTAINER_HOSTS.has(parsed.hostname))
    throw new Error(
      `AWS_CONTAINER_CREDENTIALS_FULL_URI names ${parsed.hostname} over plain http; only loopback and the container agents may be`,
    );
  const headers: Record<string, string> = {};
  const tokenFile = env.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE;
  const token = tokenFile ? readFileSync(tokenFile, "utf8").trim() : env.AWS_CONTAINER_AUTHORIZATION_TOKEN;
  if (token) headers.authorization = token;
  const res = await cloudRequest({
    method: "GET",
    url,
    headers,
    timeoutMs: options.metadataTimeoutMs ?? 1000,
  });
  if (res.status !== 200)
    throw new Error(`the container credentials endpoint answered ${res.status}: ${res.body.slice(0, 200)}`);
  return readCredentialJson(res.body, "the container credentials endpoint");
}

async function instanceCredentials(options: AwsChainOptions): Promise<AwsCredentials> {
  const env = options.env ?? process.env;
  const base = (env.AWS_EC2_METADATA_SERVICE_ENDPOINT || "http://169.254.169.254").replace(/\/+$/, "");
  const timeoutMs = options.metadataTimeoutMs ?? 1000;
  const tokenRes = await cloudRequest({
    method: "PUT",
    url: `${base}/latest/api/token`,
    headers: { "x-aws-ec2-metadata-token-ttl-seconds": "21600" },
    timeoutMs,
  });
  if (tokenRes.status !== 200) throw new Error(`the IMDSv2 token request answered ${tokenRes.status}`);
  const headers = { "x-aws-ec2-metadata-token": tokenRes.body.trim() };
  const rolePath = `${base}/latest/meta-data/iam/security-credentials/`;
  const roles = await cloudRequest({ method: "GET", url: rolePath, headers, timeoutMs });
  const role = roles.body.split("\n")[0]?.trim();
  if (roles.status !== 200 || !role) throw new Error("the instance has no IAM role");
  const res = await cloudRequest({
    method: "GET",
    url: rolePath + encodeURIComponent(role),
    headers,
    timeoutMs,
  });
  if (res.status !== 200) throw new Error(`the instance role's credentials answered ${res.status}`);
  return readCredentialJson(res.body, "the instance metadata service");
}
