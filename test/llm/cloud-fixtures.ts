/**
 * What the Bedrock and Vertex tests stand up besides the mock provider: a SigV4 verifier (recomputes
 * a received request's signature from the headers it actually carried), a Google token endpoint that
 * checks the service-account JWT's RS256 signature, and service-account key files.
 */
import { createHash, createHmac, createVerify, generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { canonicalRequest } from "../../src/llm/aws-sigv4.js";
import type { MockRequest } from "../support/mock-provider.js";

/**
 * Checks a request the mock received the way AWS does: rebuilds the canonical request from the
 * headers named in `SignedHeaders` as they arrived, and compares signatures. Returns what failed.
 */
export function verifySigV4(request: MockRequest, secret: string): string | undefined {
  const rawBody = request.rawBody ?? "";
  const auth = String(request.headers.authorization ?? "");
  const m =
    /^AWS4-HMAC-SHA256 Credential=[^/]+\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m) return `not a SigV4 authorization header: ${auth}`;
  const [, day, region, service, signedHeaders, signature] = m;
  const headers: Record<string, string> = {};
  for (const name of signedHeaders.split(";")) {
    const value = request.headers[name];
    if (value === undefined) return `signed header ${name} was not sent`;
    headers[name] = String(value);
  }
  const url = new URL(`http://${headers.host}${request.path}`);
  const { canonical } = canonicalRequest(
    request.method,
    url,
    headers,
    String(request.headers["x-amz-content-sha256"]),
  );
  const amzDate = String(request.headers["x-amz-date"]);
  const scope = `${day}/${region}/${service}/aws4_request`;
  const hash = (s: string) => createHash("sha256").update(s).digest("hex");
  if (hash(rawBody) !== request.headers["x-amz-content-sha256"])
    return "the body hash does not match the body";
  const toSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${hash(canonical)}`;
  let key: Buffer = createHmac("sha256", `AWS4${secret}`).update(day).digest();
  for (const part of [region, service, "aws4_request"]) key = createHmac("sha256", key).update(part).digest();
  const expected = createHmac("sha256", key).update(toSign).digest("hex");
  return expected === signature ? undefined : "signature mismatch";
}

/** A running Google token endpoint. */
export interface TokenServer {
  url: string;
  /** Grants received, in order (`jwt-bearer` or `refresh_token`). */
  grants: string[];
  /** The next answers' status (200 by default). */
  status: number;
  /** Seconds each token lives. */
  expiresIn: number;
  close(): Promise<void>;
}

/** A token endpoint on 127.0.0.1 that checks JWTs against `publicKey` and hands out `token-N`. */
export async function startTokenServer(publicKey: string): Promise<TokenServer> {
  let issued = 0;
  const state: TokenServer = {
    url: "",
    grants: [],
    status: 200,
    expiresIn: 3600,
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const form = new URLSearchParams(body);
      const grant = form.get("grant_type") ?? "";
      state.grants.push(grant);
      let ok = state.status === 200;
      if (ok && grant === "urn:ietf:params:oauth:grant-type:jwt-bearer") {
        const [h, c, s] = (form.get("assertion") ?? "").split(".");
        const claims = JSON.parse(Buffer.from(c ?? "", "base64url").toString());
        ok =
          createVerify("RSA-SHA256")
            .update(`${h}.${c}`)
            .verify(publicKey, Buffer.from(s ?? "", "base64url")) &&
          claims.aud === state.url &&
          claims.scope === "https://www.googleapis.com/auth/cloud-platform";
      } else if (ok && grant === "refresh_token") {
        ok = form.get("refresh_token") === "refresh-1" && form.get("client_id") === "client-1";
      }
      res.writeHead(ok ? 200 : state.status === 200 ? 400 : state.status, {
        "content-type": "application/json",
      });
      res.end(
        JSON.stringify(
          ok
            ? { access_token: `token-${++issued}`, expires_in: state.expiresIn, token_type: "Bearer" }
            : { error: "invalid_grant", error_description: "Invalid JWT Signature." },
        ),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  return state;
}

/** A fresh RSA key pair (PEM). */
export function rsaKeyPair(): { privateKey: string; publicKey: string } {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
}

/** Writes a service-account key file whose `token_uri` is the local endpoint. */
export function writeServiceAccountKey(
  dir: string,
  privateKey: string,
  tokenUri: string,
  projectId = "proj-from-key",
): string {
  const file = path.join(dir, "sa.json");
  fs.writeFileSync(
    file,
    JSON.stringify({
      type: "service_account",
      project_id: projectId,
      private_key_id: "kid-1",
      private_key: privateKey,
      client_email: "goat@proj.iam.gserviceaccount.com",
      token_uri: tokenUri,
    }),
  );
  return file;
}
