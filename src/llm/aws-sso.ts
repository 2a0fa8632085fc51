/**
 * IAM Identity Center (SSO) profiles: `sso_session` naming an `[sso-session x]` section (start URL and
 * region), or the legacy `sso_start_url` / `sso_region` on the profile itself, plus `sso_account_id`
 * and `sso_role_name`. `aws sso login` leaves an access token in `~/.aws/sso/cache/<sha1>.json`, the
 * hash of the session's name (or of the legacy start URL); we read it and trade it at the SSO portal's
 * `GetRoleCredentials` (`GET /federation/credentials`, the token in `x-amz-sso_bearer_token`).
 *
 * We do not refresh an expired token through SSO-OIDC ourselves (the SDKs do for `sso_session`); an
 * expired or missing token asks the user to run `aws sso login`, which is one command away.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { AwsProfile, AwsSharedFiles } from "./aws-config-files.js";
import type { AwsCredentials } from "./aws-sigv4.js";
import { cloudRequest } from "./cloud-http.js";
import { proxyFor } from "./proxy.js";

/** True when the profile is configured for SSO. */
export function isSsoProfile(profile: AwsProfile): boolean {
  return ["sso_session", "sso_start_url", "sso_account_id", "sso_role_name"].some((k) => k in profile);
}

/** What resolving an SSO profile needs beyond the profile. */
export interface SsoContext {
  env: Record<string, string | undefined>;
  home?: string;
  proxy?: string | false;
  timeoutMs?: number;
}

/** The role credentials of an SSO profile. */
export async function ssoCredentials(
  name: string,
  profile: AwsProfile,
  files: AwsSharedFiles,
  context: SsoContext,
): Promise<AwsCredentials> {
  const login = `run \`aws sso login --profile ${name}\``;
  const session = profile.sso_session ? files.ssoSessions.get(profile.sso_session) : undefined;
  if (profile.sso_session && !session)
    throw new Error(
      `AWS profile "${name}" names sso_session ${profile.sso_session}, which the config file lacks`,
    );
  const region = session?.sso_region ?? profile.sso_region;
  const cacheKey = profile.sso_session ?? profile.sso_start_url;
  const missing = [
    ["sso_account_id", profile.sso_account_id],
    ["sso_role_name", profile.sso_role_name],
    ["sso_region", region],
    ["sso_start_url", session?.sso_start_url ?? profile.sso_start_url],
  ].find(([, value]) => !value);
  if (missing || !cacheKey || !region)
    throw new Error(`AWS profile "${name}" is an SSO profile without ${missing?.[0] ?? "sso_start_url"}`);

  const token = readCachedToken(cacheKey, context.home);
  if (!token) throw new Error(`AWS profile "${name}" has no SSO login cached; ${login}`);
  if (token.expiresAt <= Date.now())
    throw new Error(`the SSO login of AWS profile "${name}" has expired; ${login}`);

  const base =
    context.env.AWS_ENDPOINT_URL_SSO ||
    context.env.AWS_ENDPOINT_URL ||
    `https://portal.sso.${region}.amazonaws.com`;
  const url = new URL(`${base.replace(/\/+$/, "")}/federation/credentials`);
  url.searchParams.set("account_id", profile.sso_account_id);
  url.searchParams.set("role_name", profile.sso_role_name);
  const res = await cloudRequest({
    method: "GET",
    url: url.href,
    headers: { "x-amz-sso_bearer_token": token.accessToken },
    timeoutMs: context.timeoutMs ?? 10_000,
    proxy: proxyFor(url, context.proxy, context.env),
  });
  // The portal answers 401 when the token was revoked or aged out before its stated expiry.
  if (res.status === 401 || res.status === 403)
    throw new Error(
      `the SSO portal refused the cached login of AWS profile "${name}" (${res.status}); ${login}`,
    );
  if (res.status !== 200)
    throw new Error(
      `the SSO portal answered ${res.status} for AWS profile "${name}": ${res.body.slice(0, 200)}`,
    );
  return readRoleCredentials(res.body);
}

function readCachedToken(key: string, home?: string): { accessToken: string; expiresAt: number } | undefined {
  const file = `${createHash("sha1").update(key, "utf8").digest("hex")}.json`;
  let json: { [key: string]: unknown } | null;
  try {
    json = JSON.parse(readFileSync(join(home ?? homedir(), ".aws", "sso", "cache", file), "utf8"));
  } catch {
    return undefined;
  }
  if (typeof json?.accessToken !== "string") return undefined;
  const expiresAt = new Date(String(json.expiresAt)).getTime();
  return { accessToken: json.accessToken, expiresAt: Number.isNaN(expiresAt) ? 0 : expiresAt };
}

function readRoleCredentials(text: string): AwsCredentials {
  let role: { [key: string]: unknown } | null | undefined;
  try {
    role = JSON.parse(text)?.roleCredentials;
  } catch {
    role = undefined;
  }
  if (typeof role?.accessKeyId !== "string" || typeof role?.secretAccessKey !== "string")
    throw new Error("the SSO portal answered without role credentials");
  // `expiration` is milliseconds since the epoch.
  const expiration = typeof role.expiration === "number" ? new Date(role.expiration) : undefined;
  return {
    accessKeyId: role.accessKeyId,
    secretAccessKey: role.secretAccessKey,
    sessionToken: typeof role.sessionToken === "string" ? role.sessionToken : undefined,
    expiration,
  };
}
