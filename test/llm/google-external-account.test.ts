/**
 * Workload identity federation (`external_account` ADC files) against a local server that plays the
 * three parties on their real wires: the platform's token URL (text or JSON), Google's STS (RFC 8693
 * token exchange, form-encoded) and IAM Credentials' `generateAccessToken` (JSON, bearer).
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGoogleTokenSource } from "../../src/llm/google-auth.js";
import { tempDir } from "../support/temp-dirs.js";

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let origin: string;
let server: http.Server;
const seen: Seen[] = [];
let stsExpiresIn = 3600;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
      if (req.url === "/oidc/text") {
        if (req.headers.metadata !== "true") return res.writeHead(400).end();
        return res.end("oidc-from-url");
      }
      if (req.url === "/oidc/json") return json(200, { value: "oidc-from-json", count: 1 });
      if (req.url === "/v1/token" && req.method === "POST") {
        const form = Object.fromEntries(new URLSearchParams(body));
        if (req.headers["content-type"] !== "application/x-www-form-urlencoded")
          return json(400, { error: "invalid_request" });
        if (!String(form.subject_token).startsWith("oidc-"))
          return json(400, { error: "invalid_grant", error_description: "The subject token is invalid." });
        return json(200, {
          access_token: `federated-for-${form.subject_token}`,
          issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
          token_type: "Bearer",
          expires_in: stsExpiresIn,
        });
      }
      const impersonation = /^\/v1\/projects\/-\/serviceAccounts\/([^:]+):generateAccessToken$/.exec(
        req.url ?? "",
      );
      if (impersonation && req.method === "POST") {
        if (!String(req.headers.authorization).startsWith("Bearer federated-for-"))
          return json(401, {
            error: {
              code: 401,
              message: "Request had invalid authentication credentials.",
              status: "UNAUTHENTICATED",
            },
          });
        return json(200, {
          accessToken: `sa-token-for-${decodeURIComponent(impersonation[1])}`,
          expireTime: new Date(Date.now() + 1_800_000).toISOString(),
        });
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const AUDIENCE =
  "//iam.googleapis.com/projects/123456/locations/global/workloadIdentityPools/pool/providers/github";

function writeConfig(config: Record<string, unknown>): string {
  const file = path.join(tempDir("goat-wif-"), "wif.json");
  fs.writeFileSync(
    file,
    JSON.stringify({
      type: "external_account",
      audience: AUDIENCE,
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
      token_url: `${origin}/v1/token`,
      ...config,
    }),
  );
  return file;
}

const tokenFor = (file: string) =>
  createGoogleTokenSource({
    env: { GOOGLE_APPLICATION_CREDENTIALS: file },
    home: tempDir("goat-home-"),
  }).get();

describe("workload identity federation (external_account)", () => {
  it("exchanges a subject token from a file at STS with the pool's audience and token type", async () => {
    const dir = tempDir("goat-wif-");
    fs.writeFileSync(path.join(dir, "token"), "oidc-from-file\n");
    const file = writeConfig({
      credential_source: { file: path.join(dir, "token") },
      quota_project_id: "billing",
    });
    const before = seen.length;
    const token = await tokenFor(file);
    expect(token).toMatchObject({ accessToken: "federated-for-oidc-from-file", quotaProjectId: "billing" });
    const [exchange] = seen.slice(before);
    expect(Object.fromEntries(new URLSearchParams(exchange.body))).toEqual({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      audience: AUDIENCE,
      scope: "https://www.googleapis.com/auth/cloud-platform",
      requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
      subject_token: "oidc-from-file",
      subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
    });
  });

  it("fetches the subject token from a URL with its headers, as text or one field of JSON", async () => {
    const text = writeConfig({
      credential_source: { url: `${origin}/oidc/text`, headers: { Metadata: "true" } },
    });
    expect((await tokenFor(text)).accessToken).toBe("federated-for-oidc-from-url");
    const json = writeConfig({
      credential_source: {
        url: `${origin}/oidc/json`,
        format: { type: "json", subject_token_field_name: "value" },
      },
    });
    expect((await tokenFor(json)).accessToken).toBe("federated-for-oidc-from-json");
  });

  it("impersonates the service account with the federated token, for the lifetime asked", async () => {
    const dir = tempDir("goat-wif-");
    fs.writeFileSync(path.join(dir, "token"), "oidc-from-file");
    const file = writeConfig({
      credential_source: { file: path.join(dir, "token") },
      service_account_impersonation_url: `${origin}/v1/projects/-/serviceAccounts/vertex@proj.iam.gserviceaccount.com:generateAccessToken`,
      service_account_impersonation: { token_lifetime_seconds: 1800 },
    });
    const before = seen.length;
    expect((await tokenFor(file)).accessToken).toBe("sa-token-for-vertex@proj.iam.gserviceaccount.com");
    const impersonation = seen.slice(before)[1];
    expect(impersonation.headers.authorization).toBe("Bearer federated-for-oidc-from-file");
    expect(JSON.parse(impersonation.body)).toEqual({
      scope: ["https://www.googleapis.com/auth/cloud-platform"],
      lifetime: "1800s",
    });
  });

  it("authenticates a confidential client with Basic, and sends a workforce pool's user project otherwise", async () => {
    const dir = tempDir("goat-wif-");
    fs.writeFileSync(path.join(dir, "token"), "oidc-x");
    const source = { file: path.join(dir, "token") };
    let before = seen.length;
    await tokenFor(writeConfig({ credential_source: source, client_id: "cid", client_secret: "csecret" }));
    expect(seen[before].headers.authorization).toBe(`Basic ${Buffer.from("cid:csecret").toString("base64")}`);
    before = seen.length;
    await tokenFor(writeConfig({ credential_source: source, workforce_pool_user_project: "wf-proj" }));
    expect(new URLSearchParams(seen[before].body).get("options")).toBe('{"userProject":"wf-proj"}');
  });

  it("refreshes before expiry: a short-lived federated token is exchanged again, reading the rotated file", async () => {
    stsExpiresIn = 120; // inside the 5-minute margin
    try {
      const dir = tempDir("goat-wif-");
      const tokenFile = path.join(dir, "token");
      fs.writeFileSync(tokenFile, "oidc-first");
      const source = createGoogleTokenSource({
        env: { GOOGLE_APPLICATION_CREDENTIALS: writeConfig({ credential_source: { file: tokenFile } }) },
      });
      expect((await source.get()).accessToken).toBe("federated-for-oidc-first");
      fs.writeFileSync(tokenFile, "oidc-rotated");
      expect((await source.get()).accessToken).toBe("federated-for-oidc-rotated");
    } finally {
      stsExpiresIn = 3600;
    }
  });

  it("quotes STS's refusal, and names the sources it does not support", async () => {
    const dir = tempDir("goat-wif-");
    fs.writeFileSync(path.join(dir, "token"), "expired-token");
    await expect(
      tokenFor(writeConfig({ credential_source: { file: path.join(dir, "token") } })),
    ).rejects.toThrow(/refused the subject token \(400\): The subject token is invalid/);
    await expect(
      tokenFor(writeConfig({ credential_source: { environment_id: "aws1", region_url: "http://x" } })),
    ).rejects.toThrow(/sourced from aws1 are not supported/);
    await expect(
      tokenFor(writeConfig({ credential_source: { executable: { command: "/bin/true" } } })),
    ).rejects.toThrow(/sourced from an executable are not supported/);
  });
});
