/**
 * The small HTTP requests cloud credentials need (AWS container and instance metadata, Google's token
 * endpoint and metadata server): one request, a whole-request time limit, the body as text. Not the
 * model transport (http.ts): these are rare (once per credential lifetime) and never streamed.
 */
import http from "node:http";
import https from "node:https";
import { ProviderError } from "./errors.js";
import { createTunnelAgent } from "./proxy.js";

/** One credential request. */
export interface CloudRequest {
  method: "GET" | "PUT" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** The whole request's limit (connect, answer and body). */
  timeoutMs: number;
  /** A proxy to tunnel through (token endpoints on the internet; never the link-local metadata servers). */
  proxy?: URL;
}

/** The status and body text of an answer. */
export interface CloudResponse {
  status: number;
  body: string;
}

/** Sends one request; rejects on network failure or when the limit passes (any status resolves). */
export function cloudRequest(request: CloudRequest): Promise<CloudResponse> {
  const url = new URL(request.url);
  const secure = url.protocol === "https:";
  const lib = secure ? https : http;
  const agent = request.proxy ? createTunnelAgent(secure, request.proxy, request.timeoutMs) : undefined;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...request.headers };
    if (request.body !== undefined) headers["content-length"] = Buffer.byteLength(request.body);
    const req = lib.request(url, { method: request.method, headers, agent, timeout: request.timeoutMs });
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer from ${url.origin} within ${request.timeoutMs} ms`));
    }, request.timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      agent?.destroy();
    };
    req.once("timeout", () =>
      req.destroy(new Error(`no answer from ${url.origin} within ${request.timeoutMs} ms`)),
    );
    req.once("error", (err) => {
      done();
      reject(err);
    });
    req.once("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (body.length < 1024 * 1024) body += chunk;
      });
      res.once("end", () => {
        done();
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.once("error", (err) => {
        done();
        reject(err);
      });
    });
    req.end(request.body);
  });
}

/** An on/off environment switch (`CLAUDE_CODE_USE_BEDROCK=1`): set, and not `0` or `false`. */
export function envFlag(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false";
}

/** A cloud credential that could not be had (the chain, the token exchange), as the call's typed error. */
export function credentialError(provider: string, err: unknown): ProviderError {
  return new ProviderError({
    kind: "authentication",
    provider,
    message: `${provider}: ${(err as Error).message}`,
    cause: err,
  });
}
