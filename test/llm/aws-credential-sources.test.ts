/**
 * The AWS chain's sources past static keys, against real files, real processes and a local STS and SSO
 * portal that speak the real wire: `credential_process` (run, parsed, refreshed, bounded), role
 * assumption through a SigV4-signed STS `AssumeRole` (XML answer), web identity from a profile and from
 * the environment (`AssumeRoleWithWebIdentity`), SSO from `aws sso login`'s token cache through the
 * portal's `GetRoleCredentials`, and the SDK's order between them.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAwsCredentialChain } from "../../src/llm/aws-credentials.js";
import { signRequest } from "../../src/llm/aws-sigv4.js";
import { tempDir } from "../support/temp-dirs.js";

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
});

type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;
async function serve(handler: Handler): Promise<string> {
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => handler(req, body, res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** True while `pid` runs (a zombie left for a parent that does not reap counts as ended). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

const noImds = { AWS_EC2_METADATA_DISABLED: "true" };

/** A home with `.aws/config` (and optionally `.aws/credentials`) written. */
function awsHome(config: string, credentials?: string): string {
  const home = tempDir("goat-aws-");
  fs.mkdirSync(path.join(home, ".aws"));
  fs.writeFileSync(path.join(home, ".aws", "config"), config);
  if (credentials) fs.writeFileSync(path.join(home, ".aws", "credentials"), credentials);
  return home;
}

const stsXml = (action: string, n: number, expiresInMs = 3_600_000) =>
  `<${action}Response xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><${action}Result>
  <Credentials>
    <AccessKeyId>ASIAROLE${n}</AccessKeyId>
    <SecretAccessKey>role-secret-${n}</SecretAccessKey>
    <SessionToken>role-token-${n}&amp;x</SessionToken>
    <Expiration>${new Date(Date.now() + expiresInMs).toISOString()}</Expiration>
  </Credentials>
  <AssumedRoleUser><Arn>arn:aws:sts::123:assumed-role/r/s</Arn><AssumedRoleId>AROA:s</AssumedRoleId></AssumedRoleUser>
</${action}Result><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></${action}Response>`;

const stsError = (code: string, message: string) =>
  `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>r-2</RequestId></ErrorResponse>`;

/**
 * A local STS: checks AssumeRole's SigV4 signature against the secret it knows for the access key (the
 * signer itself is checked against AWS's published vectors in aws-sigv4.test.ts), answers in XML.
 */
async function fakeSts(
  secrets: Record<string, string>,
  calls: Array<Record<string, string>>,
): Promise<string> {
  return serve((req, body, res) => {
    const form = Object.fromEntries(new URLSearchParams(body));
    calls.push(form);
    if (req.method !== "POST" || form.Version !== "2011-06-15") return res.writeHead(400).end();
    if (form.Action === "AssumeRoleWithWebIdentity") {
      if (req.headers.authorization) return res.writeHead(400).end(stsError("InvalidRequest", "signed"));
      if (form.WebIdentityToken !== "oidc-token")
        return res.writeHead(400).end(stsError("InvalidIdentityToken", "bad token"));
      return res.end(stsXml("AssumeRoleWithWebIdentity", calls.length));
    }
    const auth =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/sts\/aws4_request, SignedHeaders=([^,]+), Signature=(\w+)$/.exec(
        String(req.headers.authorization),
      );
    const secret = auth && secrets[auth[1]];
    if (!auth || !secret) return res.writeHead(403).end(stsError("InvalidClientTokenId", "unknown key"));
    const signed: Record<string, string> = {};
    for (const name of auth[4].split(";"))
      if (!name.startsWith("x-amz-") && name !== "authorization") signed[name] = String(req.headers[name]);
    const amzDate = String(req.headers["x-amz-date"]);
    const date = new Date(
      `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
    );
    const expected = signRequest({
      method: "POST",
      url: new URL(`http://${req.headers.host}${req.url}`),
      headers: signed,
      body,
      region: auth[3],
      service: "sts",
      credentials: {
        accessKeyId: auth[1],
        secretAccessKey: secret,
        sessionToken: req.headers["x-amz-security-token"] as string | undefined,
      },
      date,
    });
    if (expected.authorization !== req.headers.authorization)
      return res.writeHead(403).end(stsError("SignatureDoesNotMatch", "signature"));
    if (form.RoleArn.endsWith(":role/denied"))
      return res.writeHead(403).end(stsError("AccessDenied", "not allowed to assume"));
    res.end(stsXml("AssumeRole", calls.length));
  });
}

describe("credential_process", () => {
  it("runs the command, reads its Version 1 JSON, and runs it again before the credentials expire", async () => {
    const dir = tempDir("goat-aws-");
    const counter = path.join(dir, "count");
    // A real helper: counts its runs; the first credentials expire inside the 5-minute margin.
    const script = path.join(dir, "helper.mjs");
    fs.writeFileSync(
      script,
      `import fs from "node:fs";
const n = (fs.existsSync(${JSON.stringify(counter)}) ? Number(fs.readFileSync(${JSON.stringify(counter)}, "utf8")) : 0) + 1;
fs.writeFileSync(${JSON.stringify(counter)}, String(n));
const ms = n === 1 ? 120000 : 3600000;
console.log(JSON.stringify({ Version: 1, AccessKeyId: "AKPROC" + n, SecretAccessKey: "s" + n, SessionToken: "t" + n, Expiration: new Date(Date.now() + ms).toISOString() }));
`,
    );
    const home = awsHome(
      `[profile helper]\ncredential_process = "${process.execPath}" "${script}" --flag\nregion = eu-west-1\n`,
    );
    const chain = createAwsCredentialChain({ env: { AWS_PROFILE: "helper", ...noImds }, home });
    expect(await chain.get()).toMatchObject({
      accessKeyId: "AKPROC1",
      secretAccessKey: "s1",
      sessionToken: "t1",
    });
    expect((await chain.get()).accessKeyId).toBe("AKPROC2");
    expect((await chain.get()).accessKeyId).toBe("AKPROC2"); // an hour left: not run again
    expect(fs.readFileSync(counter, "utf8")).toBe("2");
  });

  it("says which profile's command failed, and why", async () => {
    const home = awsHome(
      '[profile broken]\ncredential_process = echo \'login required\' >&2; exit 3\n[profile notjson]\ncredential_process = echo hello\n[profile v2]\ncredential_process = echo \'{"Version":2,"AccessKeyId":"a","SecretAccessKey":"b"}\'\n',
    );
    const get = (profile: string) =>
      createAwsCredentialChain({ env: { AWS_PROFILE: profile, ...noImds }, home }).get();
    await expect(get("broken")).rejects.toThrow(/profile "broken" exited with status 3: login required/);
    await expect(get("notjson")).rejects.toThrow(/"notjson" printed something other than JSON/);
    await expect(get("v2")).rejects.toThrow(/did not answer Version 1/);
  });

  it("ends a command that does not answer in time, with its whole process group", async () => {
    const dir = tempDir("goat-aws-");
    const pidFile = path.join(dir, "pid");
    // The shell starts a child that would outlive it; the limit must end both. The pid is written to a
    // temporary name and renamed, so a kill mid-write cannot leave an empty file read as pid 0.
    const home = awsHome(
      `[profile slow]\ncredential_process = sleep 30 & echo $! > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile}; wait\n`,
    );
    const chain = createAwsCredentialChain({
      env: { AWS_PROFILE: "slow", ...noImds },
      home,
      // Long enough for a loaded machine to start the shell and its child, short for a test.
      processTimeoutMs: 3000,
    });
    const started = Date.now();
    await expect(chain.get()).rejects.toThrow(/"slow" gave no answer within 3 s/);
    expect(Date.now() - started).toBeLessThan(15_000);
    const pid = Number(fs.readFileSync(pidFile, "utf8"));
    expect(pid).toBeGreaterThan(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(running(pid)).toBe(false); // the grandchild is gone too
  });
});

describe("role assumption through STS", () => {
  it("assumes the role with the source profile's keys, signed for sts, with the profile's settings", async () => {
    const calls: Array<Record<string, string>> = [];
    const sts = await fakeSts({ AKIDSOURCE: "source-secret" }, calls);
    const home = awsHome(
      "[profile deploy]\nrole_arn = arn:aws:iam::123456789012:role/deploy\nsource_profile = base\nrole_session_name = ci-run\nexternal_id = ext-42\nduration_seconds = 900\nregion = eu-central-1\n",
      "[base]\naws_access_key_id = AKIDSOURCE\naws_secret_access_key = source-secret\n",
    );
    const chain = createAwsCredentialChain({
      env: { AWS_PROFILE: "deploy", AWS_ENDPOINT_URL_STS: sts, ...noImds },
      home,
    });
    const creds = await chain.get();
    expect(creds).toMatchObject({
      accessKeyId: "ASIAROLE1",
      secretAccessKey: "role-secret-1",
      sessionToken: "role-token-1&x",
    });
    expect(creds.expiration!.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    expect(calls[0]).toEqual({
      Action: "AssumeRole",
      Version: "2011-06-15",
      RoleArn: "arn:aws:iam::123456789012:role/deploy",
      RoleSessionName: "ci-run",
      ExternalId: "ext-42",
      DurationSeconds: "900",
    });
  });

  it("chains roles (a source profile that itself assumes a role) and takes keys from credential_source", async () => {
    const calls: Array<Record<string, string>> = [];
    // The second AssumeRole is signed with the first one's answer: the fake knows that secret too.
    const sts = await fakeSts({ AKIDENV: "env-secret", ASIAROLE1: "role-secret-1" }, calls);
    const home = awsHome(
      "[profile outer]\nrole_arn = arn:aws:iam::1:role/outer\nsource_profile = inner\n[profile inner]\nrole_arn = arn:aws:iam::1:role/inner\ncredential_source = Environment\n",
    );
    const env = {
      AWS_PROFILE: "outer",
      AWS_ACCESS_KEY_ID: "AKIDENV",
      AWS_SECRET_ACCESS_KEY: "env-secret",
      AWS_ENDPOINT_URL: sts,
      ...noImds,
    };
    const creds = await createAwsCredentialChain({ env, home }).get();
    expect(calls.map((c) => c.RoleArn)).toEqual(["arn:aws:iam::1:role/inner", "arn:aws:iam::1:role/outer"]);
    expect(creds.accessKeyId).toBe("ASIAROLE2");
    expect(calls[0].RoleSessionName).toMatch(/^goat-\d+$/);
  });

  it("reports STS's refusal with its code, a cycle of source profiles without calling STS, and a missing container source", async () => {
    const calls: Array<Record<string, string>> = [];
    const sts = await fakeSts({ AKIDSOURCE: "source-secret" }, calls);
    const home = awsHome(
      "[profile denied]\nrole_arn = arn:aws:iam::1:role/denied\nsource_profile = base\n[profile a]\nrole_arn = arn:aws:iam::1:role/a\nsource_profile = b\n[profile b]\nrole_arn = arn:aws:iam::1:role/b\nsource_profile = a\n",
      "[base]\naws_access_key_id = AKIDSOURCE\naws_secret_access_key = source-secret\n",
    );
    const get = (profile: string) =>
      createAwsCredentialChain({
        env: { AWS_PROFILE: profile, AWS_ENDPOINT_URL_STS: sts, ...noImds },
        home,
      }).get();
    await expect(get("denied")).rejects.toThrow(
      /AssumeRole for arn:aws:iam::1:role\/denied was refused \(AccessDenied\): not allowed/,
    );
    const before = calls.length;
    await expect(get("a")).rejects.toThrow(/cycle/);
    expect(calls.length).toBe(before);
    const container = awsHome(
      "[profile ecs]\nrole_arn = arn:aws:iam::1:role/e\ncredential_source = EcsContainer\n",
    );
    await expect(
      createAwsCredentialChain({ env: { AWS_PROFILE: "ecs", ...noImds }, home: container }).get(),
    ).rejects.toThrow(
      /"ecs" takes its credentials from the container, but AWS_CONTAINER_CREDENTIALS_RELATIVE_URI/,
    );
  });
});

describe("web identity", () => {
  it("exchanges the token file named by the environment (EKS) without signing", async () => {
    const calls: Array<Record<string, string>> = [];
    const sts = await fakeSts({}, calls);
    const dir = tempDir("goat-aws-");
    fs.writeFileSync(path.join(dir, "token"), "oidc-token\n");
    const env = {
      AWS_WEB_IDENTITY_TOKEN_FILE: path.join(dir, "token"),
      AWS_ROLE_ARN: "arn:aws:iam::1:role/pod",
      AWS_ROLE_SESSION_NAME: "pod-session",
      AWS_ENDPOINT_URL_STS: sts,
      ...noImds,
    };
    const creds = await createAwsCredentialChain({ env, home: dir }).get();
    expect(creds.accessKeyId).toBe("ASIAROLE1");
    expect(calls[0]).toMatchObject({
      Action: "AssumeRoleWithWebIdentity",
      RoleArn: "arn:aws:iam::1:role/pod",
      RoleSessionName: "pod-session",
      WebIdentityToken: "oidc-token",
    });
  });

  it("takes web_identity_token_file from a profile, and says when the token is refused", async () => {
    const sts = await fakeSts({}, []);
    const dir = tempDir("goat-aws-");
    fs.writeFileSync(path.join(dir, "good"), "oidc-token");
    fs.writeFileSync(path.join(dir, "bad"), "stale");
    const home = awsHome(
      `[profile good]\nrole_arn = arn:aws:iam::1:role/w\nweb_identity_token_file = ${path.join(dir, "good")}\n[profile bad]\nrole_arn = arn:aws:iam::1:role/w\nweb_identity_token_file = ${path.join(dir, "bad")}\n`,
    );
    const get = (profile: string) =>
      createAwsCredentialChain({
        env: { AWS_PROFILE: profile, AWS_ENDPOINT_URL_STS: sts, ...noImds },
        home,
      }).get();
    expect((await get("good")).accessKeyId).toMatch(/^ASIAROLE/);
    await expect(get("bad")).rejects.toThrow(/InvalidIdentityToken/);
  });
});

describe("SSO", () => {
  const ssoConfig =
    "[profile dev]\nsso_session = corp\nsso_account_id = 111122223333\nsso_role_name = BedrockUser\nregion = us-west-2\n[sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\nsso_region = us-east-1\n";

  function cacheToken(home: string, key: string, expiresInMs: number): void {
    const dir = path.join(home, ".aws", "sso", "cache");
    fs.mkdirSync(dir, { recursive: true });
    const file = `${createHash("sha1").update(key).digest("hex")}.json`;
    fs.writeFileSync(
      path.join(dir, file),
      JSON.stringify({
        accessToken: "sso-access",
        expiresAt: new Date(Date.now() + expiresInMs).toISOString(),
        region: "us-east-1",
      }),
    );
  }

  async function fakePortal(seen: string[]): Promise<string> {
    return serve((req, _body, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.headers["x-amz-sso_bearer_token"] !== "sso-access")
        return res
          .writeHead(401, { "x-amzn-errortype": "UnauthorizedException" })
          .end('{"message":"Session token not found or invalid"}');
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          roleCredentials: {
            accessKeyId: "ASIASSO",
            secretAccessKey: "sso-secret",
            sessionToken: "sso-token",
            expiration: Date.now() + 3_600_000,
          },
        }),
      );
    });
  }

  it("trades the cached login of an sso_session profile for role credentials at the portal", async () => {
    const seen: string[] = [];
    const portal = await fakePortal(seen);
    const home = awsHome(ssoConfig);
    cacheToken(home, "corp", 3_600_000);
    const creds = await createAwsCredentialChain({
      env: { AWS_PROFILE: "dev", AWS_ENDPOINT_URL_SSO: portal, ...noImds },
      home,
    }).get();
    expect(creds).toMatchObject({
      accessKeyId: "ASIASSO",
      secretAccessKey: "sso-secret",
      sessionToken: "sso-token",
    });
    expect(creds.expiration!.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    expect(seen).toEqual(["GET /federation/credentials?account_id=111122223333&role_name=BedrockUser"]);
  });

  it("reads the legacy profile's token by its start URL", async () => {
    const portal = await fakePortal([]);
    const home = awsHome(
      "[profile old]\nsso_start_url = https://old.awsapps.com/start\nsso_region = eu-west-1\nsso_account_id = 1\nsso_role_name = R\n",
    );
    cacheToken(home, "https://old.awsapps.com/start", 3_600_000);
    const creds = await createAwsCredentialChain({
      env: { AWS_PROFILE: "old", AWS_ENDPOINT_URL_SSO: portal, ...noImds },
      home,
    }).get();
    expect(creds.accessKeyId).toBe("ASIASSO");
  });

  it("says to run aws sso login when the cached token has expired or is missing", async () => {
    const portal = await fakePortal([]);
    const home = awsHome(ssoConfig);
    const get = () =>
      createAwsCredentialChain({
        env: { AWS_PROFILE: "dev", AWS_ENDPOINT_URL_SSO: portal, ...noImds },
        home,
      }).get();
    await expect(get()).rejects.toThrow(/no SSO login cached; run `aws sso login --profile dev`/);
    cacheToken(home, "corp", -60_000);
    await expect(get()).rejects.toThrow(/has expired; run `aws sso login --profile dev`/);
  });
});

describe("the order of the chain", () => {
  it("goes to the profile, not the environment's keys, when AWS_PROFILE is set (as the JS SDK v3)", async () => {
    const home = awsHome("", "[work]\naws_access_key_id = AKIDWORK\naws_secret_access_key = w\n");
    const env = { AWS_PROFILE: "work", AWS_ACCESS_KEY_ID: "AKIDENV", AWS_SECRET_ACCESS_KEY: "e", ...noImds };
    expect((await createAwsCredentialChain({ env, home }).get()).accessKeyId).toBe("AKIDWORK");
    const { AWS_PROFILE: _, ...withoutProfile } = env;
    expect((await createAwsCredentialChain({ env: withoutProfile, home }).get()).accessKeyId).toBe("AKIDENV");
  });

  it("prefers a profile's role over its static keys, and its keys over its credential_process", async () => {
    const calls: Array<Record<string, string>> = [];
    const sts = await fakeSts({ AKIDBASE: "b" }, calls);
    const home = awsHome(
      "[profile both]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = base\naws_access_key_id = AKIDBOTH\naws_secret_access_key = s\n[profile keys]\naws_access_key_id = AKIDKEYS\naws_secret_access_key = s\ncredential_process = exit 1\n[profile base]\naws_access_key_id = AKIDBASE\naws_secret_access_key = b\n",
    );
    const get = (profile: string) =>
      createAwsCredentialChain({
        env: { AWS_PROFILE: profile, AWS_ENDPOINT_URL_STS: sts, ...noImds },
        home,
      }).get();
    expect((await get("both")).accessKeyId).toBe("ASIAROLE1");
    expect((await get("keys")).accessKeyId).toBe("AKIDKEYS");
  });
});
