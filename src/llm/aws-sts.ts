/**
 * The two AWS STS calls a credential chain makes: `AssumeRole` (signed with SigV4, service `sts`, by
 * the source credentials) and `AssumeRoleWithWebIdentity` (unsigned: the OIDC token is the proof). Both
 * are STS's query protocol: a form-encoded POST with `Action` and `Version=2011-06-15`, answered in XML.
 *
 * Endpoint: `AWS_ENDPOINT_URL_STS`, else `AWS_ENDPOINT_URL`, else the region's
 * `https://sts.<region>.amazonaws.com` (the regional endpoint, as the current SDKs default to).
 */
import type { AwsCredentials } from "./aws-sigv4.js";
import { signRequest } from "./aws-sigv4.js";
import { cloudRequest } from "./cloud-http.js";
import { proxyFor } from "./proxy.js";

/** Where and how STS is reached. */
export interface StsContext {
  env: Record<string, string | undefined>;
  region: string;
  /** The proxy setting (STS is on the internet). */
  proxy?: string | false;
  /** The request's limit (default 10 s). */
  timeoutMs?: number;
}

/** The role to assume and the session's settings, as the profile's keys give them. */
export interface AssumeRoleParams {
  roleArn: string;
  roleSessionName: string;
  externalId?: string;
  durationSeconds?: number;
}

/** `AssumeRole`, signed with `source`: the role's temporary credentials. */
export function assumeRole(
  source: AwsCredentials,
  params: AssumeRoleParams,
  context: StsContext,
): Promise<AwsCredentials> {
  const form: Record<string, string> = {
    Action: "AssumeRole",
    Version: "2011-06-15",
    RoleArn: params.roleArn,
    RoleSessionName: params.roleSessionName,
  };
  if (params.externalId) form.ExternalId = params.externalId;
  if (params.durationSeconds) form.DurationSeconds = String(params.durationSeconds);
  return stsCall(form, context, source);
}

/** `AssumeRoleWithWebIdentity` with an OIDC token (EKS's service-account token, a CI job's). */
export function assumeRoleWithWebIdentity(
  params: AssumeRoleParams & { webIdentityToken: string },
  context: StsContext,
): Promise<AwsCredentials> {
  const form: Record<string, string> = {
    Action: "AssumeRoleWithWebIdentity",
    Version: "2011-06-15",
    RoleArn: params.roleArn,
    RoleSessionName: params.roleSessionName,
    WebIdentityToken: params.webIdentityToken,
  };
  if (params.durationSeconds) form.DurationSeconds = String(params.durationSeconds);
  return stsCall(form, context);
}

/** The STS endpoint for the context (see the module comment). */
function stsEndpoint(context: StsContext): URL {
  const override = context.env.AWS_ENDPOINT_URL_STS || context.env.AWS_ENDPOINT_URL;
  return new URL(override || `https://sts.${context.region}.amazonaws.com/`);
}

async function stsCall(
  form: Record<string, string>,
  context: StsContext,
  signWith?: AwsCredentials,
): Promise<AwsCredentials> {
  const url = stsEndpoint(context);
  const body = new URLSearchParams(form).toString();
  let headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded; charset=utf-8",
  };
  if (signWith) {
    headers = signRequest({
      method: "POST",
      url,
      headers,
      body,
      region: context.region,
      service: "sts",
      credentials: signWith,
    });
  }
  const res = await cloudRequest({
    method: "POST",
    url: url.href,
    headers,
    body,
    timeoutMs: context.timeoutMs ?? 10_000,
    proxy: proxyFor(url, context.proxy, context.env),
  });
  const action = form.Action;
  if (res.status !== 200) {
    const code = xmlText(res.body, "Code") ?? `HTTP ${res.status}`;
    const message = xmlText(res.body, "Message") ?? res.body.slice(0, 200);
    throw new Error(`STS ${action} for ${form.RoleArn} was refused (${code}): ${message}`);
  }
  return readStsCredentials(res.body, action);
}

/** The `<Credentials>` element of an STS answer. */
function readStsCredentials(xml: string, action: string): AwsCredentials {
  const block = /<Credentials>([\s\S]*?)<\/Credentials>/.exec(xml)?.[1];
  const accessKeyId = block && xmlText(block, "AccessKeyId");
  const secretAccessKey = block && xmlText(block, "SecretAccessKey");
  if (!block || !accessKeyId || !secretAccessKey)
    throw new Error(`STS ${action} answered without credentials`);
  const expiration = xmlText(block, "Expiration");
  const expires = expiration ? new Date(expiration) : undefined;
  return {
    accessKeyId,
    secretAccessKey,
    sessionToken: xmlText(block, "SessionToken"),
    expiration: expires && !Number.isNaN(expires.getTime()) ? expires : undefined,
  };
}

/**
 * The text of the first `<name>` element, entities decoded. STS's answers are flat and small; a
 * regular expression reads them without an XML parser dependency.
 */
function xmlText(xml: string, name: string): string | undefined {
  const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return match ? decodeEntities(match[1].trim()) : undefined;
}

function decodeEntities(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp|#(\d+)|#x([0-9a-f]+));/gi, (_, name, dec, hex) => {
    if (dec) return String.fromCodePoint(Number(dec));
    if (hex) return String.fromCodePoint(Number.parseInt(hex, 16));
    return { lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" }[(name as string).toLowerCase()] ?? "";
  });
}
