/**
 * AWS Signature Version 4 for the JSON POSTs Bedrock takes, with `node:crypto`. About 100 lines
 * against `@smithy/signature-v4`'s dozen packages; test/llm/aws-sigv4.test.ts checks it against AWS's
 * published test vectors and test/llm/official-cloud against the official signer's output.
 */
import { createHash, createHmac } from "node:crypto";

/** The credentials a request is signed with. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When temporary credentials stop working (refreshed a few minutes before). */
  expiration?: Date;
}

/** What to sign. */
export interface SignInput {
  method: string;
  url: URL;
  /** Headers to send and sign (lower-case names); `host` is added from the URL when missing. */
  headers: Record<string, string>;
  body: string;
  region: string;
  service: string;
  credentials: AwsCredentials;
  /** The signing time; default now. */
  date?: Date;
  /** Send and sign `x-amz-content-sha256` (default true; AWS's generic test vectors have none). */
  payloadHashHeader?: boolean;
}

/**
 * Returns the headers to send: the input's, plus `host`, `x-amz-date`, `x-amz-content-sha256`,
 * `x-amz-security-token` (temporary credentials) and `authorization`. Every header given is signed.
 */
export function signRequest(input: SignInput): Record<string, string> {
  const amzDate = (input.date ?? new Date()).toISOString().replace(/[-:]|\.\d{3}/g, "");
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256Hex(input.body);
  const headers: Record<string, string> = { ...input.headers };
  headers.host ??= input.url.host;
  headers["x-amz-date"] = amzDate;
  if (input.payloadHashHeader !== false) headers["x-amz-content-sha256"] = payloadHash;
  if (input.credentials.sessionToken) headers["x-amz-security-token"] = input.credentials.sessionToken;
  const { canonical, signedHeaders } = canonicalRequest(input.method, input.url, headers, payloadHash);
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const toSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256Hex(canonical)}`;
  const key = signingKey(input.credentials.secretAccessKey, day, input.region, input.service);
  const signature = createHmac("sha256", key).update(toSign, "utf8").digest("hex");
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}

/** The canonical request (exported for the test vectors, which publish it). */
export function canonicalRequest(
  method: string,
  url: URL,
  headers: Record<string, string>,
  payloadHash: string,
): { canonical: string; signedHeaders: string } {
  const names = Object.keys(headers)
    .map((n) => n.toLowerCase())
    .sort();
  const byName = new Map(Object.entries(headers).map(([n, v]) => [n.toLowerCase(), v]));
  const canonicalHeaders = names
    .map((n) => `${n}:${String(byName.get(n)).trim().replace(/\s+/g, " ")}\n`)
    .join("");
  const signedHeaders = names.join(";");
  const canonical = [
    method.toUpperCase(),
    canonicalPath(url.pathname),
    canonicalQuery(url.searchParams),
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join("\n");
  return { canonical, signedHeaders };
}

/**
 * Every service but S3 encodes the path twice: each segment as sent (already percent-encoded, a
 * Bedrock model id's `:` travels as `%3A`) is encoded again, so `%3A` is signed as `%253A`. Dot
 * segments are removed first, as the vectors require.
 */
function canonicalPath(path: string): string {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  let normalized = out.join("/").replace(/\/{2,}/g, "/");
  if (!normalized.startsWith("/")) normalized = `/${normalized}`;
  if (path.endsWith("/") && !normalized.endsWith("/")) normalized += "/";
  return normalized.split("/").map(uriEncode).join("/");
}

function canonicalQuery(params: URLSearchParams): string {
  const pairs = [...params].map(([k, v]) => [uriEncode(k), uriEncode(v)] as const);
  pairs.sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join("&");
}

/** RFC 3986 encoding: everything but unreserved characters, uppercase hex. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

// The derived key is the same all day for a region and service: computed once, not per call.
let cachedKey: { id: string; key: Buffer } | undefined;

function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const id = `${secret}\n${day}\n${region}\n${service}`;
  if (cachedKey?.id === id) return cachedKey.key;
  const kDate = createHmac("sha256", `AWS4${secret}`).update(day).digest();
  const kRegion = createHmac("sha256", kDate).update(region).digest();
  const kService = createHmac("sha256", kRegion).update(service).digest();
  const key = createHmac("sha256", kService).update("aws4_request").digest();
  cachedKey = { id, key };
  return key;
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
