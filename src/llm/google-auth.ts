/**
 * Google Application Default Credentials for Vertex AI, in google-auth-library's order: the key file
 * `GOOGLE_APPLICATION_CREDENTIALS` names, gcloud's `application_default_credentials.json` (written by
 * `gcloud auth application-default login`), then the metadata server (GCE, Cloud Run, GKE).
 *
 * A service-account key signs a JWT (RS256, `node:crypto`) and exchanges it at the key's `token_uri`;
 * gcloud user credentials exchange their refresh token; the metadata server hands out tokens itself.
 * Tokens are cached and fetched again five minutes before they expire; concurrent calls share one
 * fetch. About 200 lines of ours instead of google-auth-library and its dependency tree.
 *
 * Workload identity federation (`external_account` files) is google-external-account.ts. Not covered:
 * `impersonated_service_account` files and `external_account_authorized_user` (workforce login
 * through gcloud); they fail with a message saying so.
 */
import { createSign } from "node:crypto";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { cloudRequest } from "./cloud-http.js";
import { externalAccountToken } from "./google-external-account.js";
import { proxyFor } from "./proxy.js";

/** Where the credentials come from; every field has google-auth-library's default. */
export interface GoogleAuthOptions {
  env?: Record<string, string | undefined>;
  /** The home directory holding `.config/gcloud/` (default: the user's). */
  home?: string;
  /** The limit of each token request (default 10 s; the metadata server gets 3 s). */
  timeoutMs?: number;
  /** The proxy setting for token endpoints (the metadata server is always reached directly). */
  proxy?: string | false;
}

/** An access token and what it was issued for. */
export interface GoogleToken {
  accessToken: string;
  /** The project the credentials belong to, when they say (a key's `project_id`, the metadata server's). */
  projectId?: string;
  /** The project to bill quota to (`quota_project_id` of user credentials), sent as `x-goog-user-project`. */
  quotaProjectId?: string;
}

/** A cached source of access tokens. */
export interface GoogleTokenSource {
  get(): Promise<GoogleToken>;
  /** The cached token while it is fresh, else undefined (then call `get`). */
  peek(): GoogleToken | undefined;
  /** Forgets the cached token (the server refused it). */
  invalidate(): void;
}

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
const REFRESH_MARGIN_MS = 5 * 60_000;

/** The credentials as a cached token source. */
export function createGoogleTokenSource(options: GoogleAuthOptions = {}): GoogleTokenSource {
  let current: { token: GoogleToken; expiresAt: number } | undefined;
  let pending: Promise<GoogleToken> | undefined;
  return {
    peek: () => (current && current.expiresAt - Date.now() > REFRESH_MARGIN_MS ? current.token : undefined),
    get() {
      if (current && current.expiresAt - Date.now() > REFRESH_MARGIN_MS)
        return Promise.resolve(current.token);
      pending ??= fetchToken(options).then(
        (fetched) => {
          current = fetched;
          pending = undefined;
          return fetched.token;
        },
        (err) => {
          pending = undefined;
          throw err;
        },
      );
      return pending;
    },
    invalidate() {
      current = undefined;
    },
  };
}

type Fetched = { token: GoogleToken; expiresAt: number };

/**
 * A Google credentials file (a service-account key or `gcloud auth application-default login`'s
 * file), read from disk: any JSON, each field checked before it is used.
 */
interface CredentialFile {
  type?: unknown;
  client_email?: unknown;
  private_key?: unknown;
  private_key_id?: unknown;
  token_uri?: unknown;
  project_id?: unknown;
  client_id?: unknown;
  client_secret?: unknown;
  refresh_token?: unknown;
  quota_project_id?: unknown;
  /** An `external_account` file's own fields (google-external-account.ts checks them). */
  readonly [key: string]: unknown;
}

async function fetchToken(options: GoogleAuthOptions): Promise<Fetched> {
  const env = options.env ?? process.env;
  const explicit = env.GOOGLE_APPLICATION_CREDENTIALS;
  if (explicit) return fromFile(readCredentialFile(explicit, "GOOGLE_APPLICATION_CREDENTIALS"), options);
  const configDir = env.CLOUDSDK_CONFIG || join(options.home ?? homedir(), ".config", "gcloud");
  const wellKnown = join(configDir, "application_default_credentials.json");
  let file: CredentialFile | null | undefined;
  try {
    file = JSON.parse(readFileSync(wellKnown, "utf8"));
  } catch {
    file = undefined;
  }
  if (file) return fromFile(file, options);
  try {
    return await fromMetadataServer(options);
  } catch (err) {
    throw new Error(
      `no Google credentials found: set GOOGLE_APPLICATION_CREDENTIALS to a service-account key, run \`gcloud auth application-default login\`, or run on Google Cloud (the metadata server said: ${(err as Error).message})`,
    );
  }
}

function readCredentialFile(path: string, source: string): CredentialFile | null {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(
      `${source} names ${path}, which is not a readable JSON key file (${(err as Error).message})`,
    );
  }
}

function fromFile(file: CredentialFile | null, options: GoogleAuthOptions): Promise<Fetched> {
  if (file?.type === "service_account") return fromServiceAccount(file, options);
  if (file?.type === "authorized_user") return fromUserCredentials(file, options);
  if (file?.type === "external_account") return fromExternalAccount(file, options);
  throw new Error(
    `Google credentials of type "${String(file?.type)}" are not supported by Goat (service_account, authorized_user and external_account are); set CLAUDE_CODE_SKIP_VERTEX_AUTH=1 behind a gateway that adds the token`,
  );
}

async function fromExternalAccount(file: CredentialFile, options: GoogleAuthOptions): Promise<Fetched> {
  const token = await externalAccountToken(file, {
    env: options.env ?? process.env,
    proxy: options.proxy,
    timeoutMs: options.timeoutMs ?? 10_000,
  });
  const quotaProjectId = typeof file.quota_project_id === "string" ? file.quota_project_id : undefined;
  return {
    token: { accessToken: token.accessToken, quotaProjectId, projectId: quotaProjectId },
    expiresAt: token.expiresAt,
  };
}

/** A signed JWT for a service account (RFC 7523), valid for an hour. */
function serviceAccountAssertion(
  key: { client_email: string; private_key: string; private_key_id?: string },
  audience: string,
  now = Date.now(),
): string {
  const iat = Math.floor(now / 1000);
  const header = { alg: "RS256", typ: "JWT", ...(key.private_key_id ? { kid: key.private_key_id } : {}) };
  const claims = { iss: key.client_email, scope: SCOPE, aud: audience, iat, exp: iat + 3600 };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = createSign("RSA-SHA256").update(unsigned).sign(key.private_key);
  return `${unsigned}.${base64url(signature)}`;
}

function base64url(data: string | Buffer): string {
  return (typeof data === "string" ? Buffer.from(data, "utf8") : data).toString("base64url");
}

async function fromServiceAccount(key: CredentialFile, options: GoogleAuthOptions): Promise<Fetched> {
  const { client_email, private_key, private_key_id } = key;
  if (typeof client_email !== "string" || typeof private_key !== "string")
    throw new Error("the service-account key has no client_email or private_key");
  const tokenUrl = typeof key.token_uri === "string" ? key.token_uri : GOOGLE_TOKEN_URL;
  const signer = {
    client_email,
    private_key,
    private_key_id: typeof private_key_id === "string" ? private_key_id : undefined,
  };
  const body = new URLSearchParams({
    grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
    assertion: serviceAccountAssertion(signer, tokenUrl),
  }).toString();
  const token = await exchange(tokenUrl, body, options);
  return {
    token: { accessToken: token.accessToken, projectId: stringOrUndefined(key.project_id) },
    expiresAt: token.expiresAt,
  };
}

async function fromUserCredentials(file: CredentialFile, options: GoogleAuthOptions): Promise<Fetched> {
  const tokenUrl = typeof file.token_uri === "string" ? file.token_uri : GOOGLE_TOKEN_URL;
  const body = new URLSearchParams({
    grant_type: "refresh_token",
    client_id: String(file.client_id ?? ""),
    client_secret: String(file.client_secret ?? ""),
    refresh_token: String(file.refresh_token ?? ""),
  }).toString();
  const token = await exchange(tokenUrl, body, options);
  return {
    token: {
      accessToken: token.accessToken,
      quotaProjectId: stringOrUndefined(file.quota_project_id),
      projectId: stringOrUndefined(file.quota_project_id),
    },
    expiresAt: token.expiresAt,
  };
}

/** POSTs a token request and reads `{access_token, expires_in}`. */
async function exchange(
  tokenUrl: string,
  body: string,
  options: GoogleAuthOptions,
): Promise<{ accessToken: string; expiresAt: number }> {
  const url = new URL(tokenUrl);
  const res = await cloudRequest({
    method: "POST",
    url: tokenUrl,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body,
    timeoutMs: options.timeoutMs ?? 10_000,
    proxy: proxyFor(url, options.proxy, options.env ?? process.env),
  });
  return readToken(res.status, res.body, `the token endpoint ${url.origin}`);
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function readToken(status: number, text: string, source: string): { accessToken: string; expiresAt: number } {
  let json:
    | { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown }
    | null
    | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const accessToken = json?.access_token;
  if (status !== 200 || typeof accessToken !== "string") {
    const why = json?.error_description ?? json?.error ?? text.slice(0, 200);
    throw new Error(
      `${source} refused the credentials (${status}): ${typeof why === "string" ? why : JSON.stringify(why)}`,
    );
  }
  const seconds = typeof json?.expires_in === "number" ? json.expires_in : 3600;
  return { accessToken, expiresAt: Date.now() + seconds * 1000 };
}

async function fromMetadataServer(options: GoogleAuthOptions): Promise<Fetched> {
  const env = options.env ?? process.env;
  const host = env.GCE_METADATA_HOST || env.GCE_METADATA_IP || "metadata.google.internal";
  const base = `http://${host}/computeMetadata/v1`;
  const headers = { "metadata-flavor": "Google" };
  const timeoutMs = 3000;
  const res = await cloudRequest({
    method: "GET",
    url: `${base}/instance/service-accounts/default/token`,
    headers,
    timeoutMs,
  });
  const token = readToken(res.status, res.body, "the metadata server");
  let projectId: string | undefined;
  try {
    const project = await cloudRequest({
      method: "GET",
      url: `${base}/project/project-id`,
      headers,
      timeoutMs,
    });
    if (project.status === 200 && project.body.trim()) projectId = project.body.trim();
  } catch {
    // The project can still come from ANTHROPIC_VERTEX_PROJECT_ID; the caller says so if it cannot.
  }
  return { token: { accessToken: token.accessToken, projectId }, expiresAt: token.expiresAt };
}
