/**
 * Credentials served over HTTP on the machine: the container credentials endpoint (ECS, EKS Pod
 * Identity: `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` / `_FULL_URI` with an optional authorization token)
 * and the EC2 instance metadata service (IMDSv2: a session token first, then the role's credentials).
 */
import { readFileSync } from "node:fs";
import type { AwsChainOptions } from "./aws-chain-options.js";
import type { AwsCredentials } from "./aws-sigv4.js";
import { cloudRequest } from "./cloud-http.js";

/** Credentials JSON as the container endpoint and IMDS return it. */
function readCredentialJson(text: string, source: string): AwsCredentials {
  let json: { [key: string]: unknown } | null;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${source} answered with something other than JSON`);
  }
  if (typeof json?.AccessKeyId !== "string" || typeof json?.SecretAccessKey !== "string")
    throw new Error(`${source} answered without AccessKeyId and SecretAccessKey`);
  const expiration = typeof json.Expiration === "string" ? new Date(json.Expiration) : undefined;
  return {
    accessKeyId: json.AccessKeyId,
    secretAccessKey: json.SecretAccessKey,
    sessionToken: typeof json.Token === "string" ? json.Token : undefined,
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

/** The container endpoint's credentials. */
export async function containerCredentials(options: AwsChainOptions): Promise<AwsCredentials> {
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

/** The instance role's credentials from IMDSv2. */
export async function instanceCredentials(options: AwsChainOptions): Promise<AwsCredentials> {
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
