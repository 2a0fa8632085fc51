/**
 * Google Application Default Credentials against local servers: a service-account key (its JWT
 * verified with the public key), gcloud's user credentials (refresh token), the metadata server,
 * token caching and refresh before expiry.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createGoogleTokenSource } from "../../src/llm/google-auth.js";
import { tempDir } from "../support/temp-dirs.js";
import { rsaKeyPair, startTokenServer, type TokenServer, writeServiceAccountKey } from "./cloud-fixtures.js";

const keys = rsaKeyPair();
let tokens: TokenServer;
beforeAll(async () => {
  tokens = await startTokenServer(keys.publicKey);
});
afterAll(() => tokens.close());
afterEach(() => {
  tokens.status = 200;
  tokens.expiresIn = 3600;
});

describe("Google Application Default Credentials", () => {
  it("exchanges a service-account JWT (verified by the endpoint) and caches the token", async () => {
    const file = writeServiceAccountKey(tempDir("goat-gcp-"), keys.privateKey, tokens.url);
    const source = createGoogleTokenSource({
      env: { GOOGLE_APPLICATION_CREDENTIALS: file },
      home: tempDir("goat-home-"),
    });
    const before = tokens.grants.length;
    const [a, b] = await Promise.all([source.get(), source.get()]);
    expect(a).toBe(b);
    expect(a).toMatchObject({
      accessToken: expect.stringMatching(/^token-\d+$/),
      projectId: "proj-from-key",
    });
    expect(await source.get()).toBe(a);
    expect(tokens.grants.slice(before)).toEqual(["urn:ietf:params:oauth:grant-type:jwt-bearer"]);
  });

  it("fetches a new token when the cached one is within five minutes of expiring, and after invalidate()", async () => {
    tokens.expiresIn = 200; // under the 5-minute margin: every get refreshes
    const file = writeServiceAccountKey(tempDir("goat-gcp-"), keys.privateKey, tokens.url);
    const source = createGoogleTokenSource({ env: { GOOGLE_APPLICATION_CREDENTIALS: file } });
    const first = await source.get();
    const second = await source.get();
    expect(second.accessToken).not.toBe(first.accessToken);
    tokens.expiresIn = 3600;
    const third = await source.get();
    expect(await source.get()).toBe(third);
    source.invalidate();
    expect((await source.get()).accessToken).not.toBe(third.accessToken);
  });

  it("refuses a key the endpoint cannot verify, quoting its answer", async () => {
    const other = rsaKeyPair();
    const file = writeServiceAccountKey(tempDir("goat-gcp-"), other.privateKey, tokens.url);
    await expect(
      createGoogleTokenSource({ env: { GOOGLE_APPLICATION_CREDENTIALS: file } }).get(),
    ).rejects.toThrow(/refused the credentials \(400\): Invalid JWT Signature/);
  });

  it("refreshes gcloud's user credentials from the well-known file, with their quota project", async () => {
    const config = tempDir("goat-gcloud-");
    fs.writeFileSync(
      path.join(config, "application_default_credentials.json"),
      JSON.stringify({
        type: "authorized_user",
        client_id: "client-1",
        client_secret: "secret",
        refresh_token: "refresh-1",
        quota_project_id: "quota-proj",
        token_uri: tokens.url,
      }),
    );
    const token = await createGoogleTokenSource({ env: { CLOUDSDK_CONFIG: config } }).get();
    expect(token).toMatchObject({
      accessToken: expect.stringMatching(/^token-/),
      quotaProjectId: "quota-proj",
    });
    expect(tokens.grants.at(-1)).toBe("refresh_token");
  });

  it("asks the metadata server (with Metadata-Flavor) when there is no file", async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(`${req.url} ${req.headers["metadata-flavor"]}`);
      if (req.headers["metadata-flavor"] !== "Google") return res.writeHead(403).end();
      if (req.url === "/computeMetadata/v1/instance/service-accounts/default/token")
        return res.end(
          JSON.stringify({ access_token: "meta-token", expires_in: 3599, token_type: "Bearer" }),
        );
      if (req.url === "/computeMetadata/v1/project/project-id") return res.end("meta-proj");
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
      const token = await createGoogleTokenSource({
        env: { GCE_METADATA_HOST: host },
        home: tempDir("goat-home-"),
      }).get();
      expect(token).toEqual({ accessToken: "meta-token", projectId: "meta-proj" });
      expect(seen[0]).toBe("/computeMetadata/v1/instance/service-accounts/default/token Google");
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("says what to do when there are no credentials anywhere", async () => {
    const source = createGoogleTokenSource({
      env: { GCE_METADATA_HOST: "127.0.0.1:9" },
      home: tempDir("goat-home-"),
    });
    await expect(source.get()).rejects.toThrow(
      /GOOGLE_APPLICATION_CREDENTIALS.*gcloud auth application-default login/,
    );
  });
});
