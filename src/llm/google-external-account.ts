/**
 * Google workload identity federation: an ADC file of `type: "external_account"` (what
 * `gcloud iam workload-identity-pools create-cred-config` writes for GitHub Actions, GitLab, Azure,
 * Kubernetes outside GKE, …). Three steps, as google-auth-library takes them:
 *
 * 1. the subject token: the OIDC or SAML token the other platform issued, read from
 *    `credential_source.file` or fetched from `credential_source.url` (with its `headers`), as plain
 *    text or as one field of a JSON answer (`format: {type: "json", subject_token_field_name}`);
 * 2. exchanged at Google's STS (`token_url`, RFC 8693 token exchange) for a federated access token,
 *    with the pool's `audience` and `subject_token_type`;
 * 3. when `service_account_impersonation_url` is given, that token buys a service account's token
 *    from IAM Credentials' `generateAccessToken` (the usual setup: the pool is granted to a service
 *    account that holds the Vertex role).
 *
 * Not covered: AWS-sourced (`environment_id: "aws1"`), executable-sourced and X.509-certificate
 * sources; they fail with a message naming them.
 */
import { readFileSync } from "node:fs";
import { cloudRequest } from "./cloud-http.js";
import { proxyFor } from "./proxy.js";

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

/** How the exchange reaches the network. */
export interface ExternalAccountContext {
  env: Record<string, string | undefined>;
  proxy?: string | false;
  timeoutMs: number;
}

/** A federated (or impersonated) access token and when it expires. */
export interface ExternalAccountToken {
  accessToken: string;
  expiresAt: number;
}

/** A JSON object read from a file or an answer: every field is checked before use. */
type JsonFields = { readonly [key: string]: unknown };

/** The fields of an `external_account` file that must be strings, checked. */
interface CheckedFile {
  fields: JsonFields;
  audience: string;
  subjectTokenType: string;
  tokenUrl: string;
}

/** Runs the three steps for an `external_account` file. */
export async function externalAccountToken(
  file: JsonFields,
  context: ExternalAccountContext,
): Promise<ExternalAccountToken> {
  const { audience, subject_token_type, token_url } = file;
  if (typeof audience !== "string") throw new Error("the external_account credentials have no audience");
  if (typeof subject_token_type !== "string")
    throw new Error("the external_account credentials have no subject_token_type");
  if (typeof token_url !== "string") throw new Error("the external_account credentials have no token_url");
  const checked = { fields: file, audience, subjectTokenType: subject_token_type, tokenUrl: token_url };
  const subjectToken = await readSubjectToken(objectOr(file.credential_source), context);
  const federated = await exchangeSubjectToken(checked, subjectToken, context);
  if (typeof file.service_account_impersonation_url !== "string") return federated;
  const lifetime = Number(objectOr(file.service_account_impersonation).token_lifetime_seconds ?? 3600);
  return impersonate(file.service_account_impersonation_url, federated.accessToken, lifetime, context);
}

async function readSubjectToken(source: JsonFields, context: ExternalAccountContext): Promise<string> {
  if (source.environment_id)
    throw new Error(
      `external_account credentials sourced from ${source.environment_id} are not supported by Goat (file and URL sources are)`,
    );
  if (source.executable)
    throw new Error(
      "external_account credentials sourced from an executable are not supported by Goat (file and URL sources are)",
    );
  if (source.certificate)
    throw new Error(
      "external_account credentials sourced from an X.509 certificate are not supported by Goat (file and URL sources are)",
    );
  let text: string;
  if (typeof source.file === "string") {
    try {
      // Read at every exchange: the platform rotates the token in place.
      text = readFileSync(source.file, "utf8");
    } catch (err) {
      throw new Error(`the subject token file ${source.file} is not readable (${(err as Error).message})`);
    }
  } else if (typeof source.url === "string") {
    const url = new URL(source.url);
    const res = await cloudRequest({
      method: "GET",
      url: url.href,
      headers: stringFields(objectOr(source.headers)),
      timeoutMs: context.timeoutMs,
      proxy: proxyFor(url, context.proxy, context.env),
    });
    if (res.status !== 200) throw new Error(`the subject token URL ${url.origin} answered ${res.status}`);
    text = res.body;
  } else {
    throw new Error("the external_account credentials' credential_source has neither file nor url");
  }
  const format = objectOr(source.format);
  const fieldName = String(format.subject_token_field_name);
  let token: unknown = text.trim();
  if (format.type === "json") token = parseJson(text)?.[fieldName];
  if (typeof token !== "string" || token === "") {
    const field = format.type === "json" ? ` field ${fieldName}` : "";
    throw new Error(`the external_account credential_source gave no subject token${field}`);
  }
  return token;
}

async function exchangeSubjectToken(
  checked: CheckedFile,
  subjectToken: string,
  context: ExternalAccountContext,
): Promise<ExternalAccountToken> {
  const file = checked.fields;
  const form: Record<string, string> = {
    grant_type: TOKEN_EXCHANGE,
    audience: checked.audience,
    scope: SCOPE,
    requested_token_type: ACCESS_TOKEN_TYPE,
    subject_token: subjectToken,
    subject_token_type: checked.subjectTokenType,
  };
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  // A confidential client authenticates with HTTP Basic; else a workforce pool names its billing project.
  if (typeof file.client_id === "string") {
    const secret = typeof file.client_secret === "string" ? file.client_secret : "";
    headers.authorization = `Basic ${Buffer.from(`${file.client_id}:${secret}`).toString("base64")}`;
  } else if (typeof file.workforce_pool_user_project === "string") {
    form.options = JSON.stringify({ userProject: file.workforce_pool_user_project });
  }
  const url = new URL(checked.tokenUrl);
  const res = await cloudRequest({
    method: "POST",
    url: url.href,
    headers,
    body: new URLSearchParams(form).toString(),
    timeoutMs: context.timeoutMs,
    proxy: proxyFor(url, context.proxy, context.env),
  });
  const json = parseJson(res.body);
  if (res.status !== 200 || typeof json?.access_token !== "string") {
    const why = json?.error_description ?? json?.error ?? res.body.slice(0, 200);
    throw new Error(`Google's STS ${url.origin} refused the subject token (${res.status}): ${String(why)}`);
  }
  const seconds = typeof json.expires_in === "number" ? json.expires_in : 3600;
  return { accessToken: json.access_token, expiresAt: Date.now() + seconds * 1000 };
}

async function impersonate(
  impersonationUrl: string,
  federatedToken: string,
  lifetimeSeconds: number,
  context: ExternalAccountContext,
): Promise<ExternalAccountToken> {
  const url = new URL(impersonationUrl);
  const res = await cloudRequest({
    method: "POST",
    url: url.href,
    headers: { "content-type": "application/json", authorization: `Bearer ${federatedToken}` },
    body: JSON.stringify({ scope: [SCOPE], lifetime: `${lifetimeSeconds}s` }),
    timeoutMs: context.timeoutMs,
    proxy: proxyFor(url, context.proxy, context.env),
  });
  const json = parseJson(res.body);
  if (res.status !== 200 || typeof json?.accessToken !== "string") {
    const why = objectOr(json?.error).message ?? res.body.slice(0, 200);
    throw new Error(
      `the service account impersonation at ${url.origin} was refused (${res.status}): ${String(why)}`,
    );
  }
  const expiresAt = new Date(String(json.expireTime)).getTime();
  return {
    accessToken: json.accessToken,
    expiresAt: Number.isNaN(expiresAt) ? Date.now() + lifetimeSeconds * 1000 : expiresAt,
  };
}

function parseJson(text: string): JsonFields | undefined {
  try {
    return objectOr(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** `value` when it is a JSON object, else an empty one. */
function objectOr(value: unknown): JsonFields {
  return typeof value === "object" && value !== null ? (value as JsonFields) : {};
}

/** The string-valued fields of `fields` (HTTP headers from the file). */
function stringFields(fields: JsonFields): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) if (typeof value === "string") out[key] = value;
  return out;
}
