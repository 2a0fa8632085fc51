/**
 * The AWS credential chain against real files and local servers: environment, shared files with a
 * profile, the container endpoint (with its authorization token), IMDSv2 (token first), refresh before
 * expiry, and the region's sources.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { awsRegion, createAwsCredentialChain } from "../../src/llm/aws-credentials.js";
import { tempDir } from "../support/temp-dirs.js";

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
});

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
async function serve(handler: Handler): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const credentialJson = (n: number, expiresInMs: number) =>
  JSON.stringify({
    AccessKeyId: `ASIA${n}`,
    SecretAccessKey: `secret-${n}`,
    Token: `token-${n}`,
    Expiration: new Date(Date.now() + expiresInMs).toISOString(),
  });

const noImds = { AWS_EC2_METADATA_DISABLED: "true" };

describe("AWS credential chain", () => {
  it("takes the environment first", async () => {
    const chain = createAwsCredentialChain({
      env: { AWS_ACCESS_KEY_ID: "AKID", AWS_SECRET_ACCESS_KEY: "s", AWS_SESSION_TOKEN: "t", ...noImds },
      home: tempDir("goat-aws-"),
    });
    expect(await chain.get()).toEqual({ accessKeyId: "AKID", secretAccessKey: "s", sessionToken: "t" });
  });

  it("reads the profile from the credentials file, and the config file's [profile x] section", async () => {
    const home = tempDir("goat-aws-");
    fs.mkdirSync(path.join(home, ".aws"));
    fs.writeFileSync(
      path.join(home, ".aws", "credentials"),
      "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = d\n\n# a comment\n[work]\naws_access_key_id=AKIDWORK\naws_secret_access_key=w\naws_session_token = tok\n",
    );
    fs.writeFileSync(
      path.join(home, ".aws", "config"),
      "[profile other]\nregion = ap-south-1\naws_access_key_id = AKIDOTHER\naws_secret_access_key = o\n",
    );
    const get = (profile?: string) =>
      createAwsCredentialChain({
        env: { ...(profile ? { AWS_PROFILE: profile } : {}), ...noImds },
        home,
      }).get();
    expect((await get()).accessKeyId).toBe("AKIDDEFAULT");
    expect(await get("work")).toEqual({ accessKeyId: "AKIDWORK", secretAccessKey: "w", sessionToken: "tok" });
    expect((await get("other")).accessKeyId).toBe("AKIDOTHER");
    expect(awsRegion({ env: { AWS_PROFILE: "other" }, home })).toBe("ap-south-1");
    expect(awsRegion({ env: { AWS_PROFILE: "other", AWS_REGION: "eu-west-3" }, home })).toBe("eu-west-3");
    expect(awsRegion({ env: { AWS_DEFAULT_REGION: "ca-central-1" }, home })).toBe("ca-central-1");
    expect(awsRegion({ env: {}, home })).toBe("us-east-1");
  });

  it("names the command to run for a role profile that needs an MFA code", async () => {
    const home = tempDir("goat-aws-");
    fs.mkdirSync(path.join(home, ".aws"));
    fs.writeFileSync(
      path.join(home, ".aws", "config"),
      "[profile mfa]\nrole_arn = arn:aws:iam::1:role/r\nsource_profile = base\nmfa_serial = arn:aws:iam::1:mfa/me\n[profile base]\naws_access_key_id = A\naws_secret_access_key = s\n",
    );
    await expect(
      createAwsCredentialChain({ env: { AWS_PROFILE: "mfa", ...noImds }, home }).get(),
    ).rejects.toThrow(/aws configure export-credentials --profile mfa/);
  });

  it("fetches container credentials with the authorization token file, and again before they expire", async () => {
    const seen: Array<string | undefined> = [];
    let served = 0;
    const origin = await serve((req, res) => {
      seen.push(req.headers.authorization);
      served++;
      // The first credentials expire in 2 minutes: inside the 5-minute margin, so the next get refreshes.
      res.end(credentialJson(served, served === 1 ? 120_000 : 3_600_000));
    });
    const dir = tempDir("goat-aws-");
    fs.writeFileSync(path.join(dir, "token"), "container-token\n");
    const chain = createAwsCredentialChain({
      env: {
        AWS_CONTAINER_CREDENTIALS_FULL_URI: `${origin}/creds`,
        AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: path.join(dir, "token"),
      },
      home: dir,
    });
    const [a, b] = await Promise.all([chain.get(), chain.get()]);
    expect(a).toBe(b); // concurrent calls share one fetch
    expect(a).toMatchObject({ accessKeyId: "ASIA1", secretAccessKey: "secret-1", sessionToken: "token-1" });
    expect(served).toBe(1);
    expect(seen[0]).toBe("container-token");
    expect((await chain.get()).accessKeyId).toBe("ASIA2");
    expect((await chain.get()).accessKeyId).toBe("ASIA2"); // an hour left: cached
    expect(served).toBe(2);
  });

  it("uses the relative container URI against the container host", async () => {
    const origin = await serve((req, res) => {
      res.end(req.url === "/v2/credentials/abc" ? credentialJson(7, 3_600_000) : "{}");
    });
    const chain = createAwsCredentialChain({
      env: { AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: "/v2/credentials/abc" },
      home: tempDir("goat-aws-"),
      containerHost: new URL(origin).host,
    });
    expect((await chain.get()).accessKeyId).toBe("ASIA7");
  });

  it("refuses a plain-http container URI on another host (its token could be read on the way)", async () => {
    const chain = createAwsCredentialChain({
      env: { AWS_CONTAINER_CREDENTIALS_FULL_URI: "http://example.com/creds" },
      home: tempDir("goat-aws-"),
    });
    await expect(chain.get()).rejects.toThrow(/plain http/);
  });

  it("speaks IMDSv2: a session token first, then the role, then its credentials", async () => {
    const log: string[] = [];
    const origin = await serve((req, res) => {
      log.push(`${req.method} ${req.url}`);
      if (req.method === "PUT" && req.url === "/latest/api/token") {
        if (req.headers["x-aws-ec2-metadata-token-ttl-seconds"] !== "21600") return res.writeHead(400).end();
        return res.end("imds-session");
      }
      if (req.headers["x-aws-ec2-metadata-token"] !== "imds-session") return res.writeHead(401).end();
      if (req.url === "/latest/meta-data/iam/security-credentials/") return res.end("my-role\n");
      if (req.url === "/latest/meta-data/iam/security-credentials/my-role")
        return res.end(credentialJson(3, 3_600_000));
      res.writeHead(404).end();
    });
    const chain = createAwsCredentialChain({
      env: { AWS_EC2_METADATA_SERVICE_ENDPOINT: origin },
      home: tempDir("goat-aws-"),
    });
    expect(await chain.get()).toMatchObject({ accessKeyId: "ASIA3", sessionToken: "token-3" });
    expect(log).toEqual([
      "PUT /latest/api/token",
      "GET /latest/meta-data/iam/security-credentials/",
      "GET /latest/meta-data/iam/security-credentials/my-role",
    ]);
  });

  it("says what to set when nothing in the chain has credentials", async () => {
    const chain = createAwsCredentialChain({ env: noImds, home: tempDir("goat-aws-") });
    await expect(chain.get()).rejects.toThrow(/no AWS credentials found: set AWS_ACCESS_KEY_ID/);
  });
});
