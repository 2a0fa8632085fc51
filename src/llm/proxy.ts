/**
 * Reaching a provider through an HTTP proxy, as corporate networks require: which proxy a URL goes
 * through (`HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY`, or an explicit setting), and keep-alive agents whose
 * sockets are `CONNECT` tunnels through it (TLS to the provider runs inside the tunnel, so the proxy
 * sees only the host name).
 *
 * Like Go's `ProxyFromEnvironment`, the environment's proxy is never used for loopback hosts: a local
 * gateway (Ollama, LiteLLM on localhost) stays reachable on a machine whose shell exports a proxy.
 */

import http from "node:http";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import { InvalidOptionError } from "../errors.js";
import { startStallTimer } from "./stall-timer.js";

/** A proxy setting: a URL (`http://user:pass@proxy:3128`), `false` for none, undefined for the environment. */
export type ProxySetting = string | false | undefined;

/**
 * The proxy for a request to `target`, or undefined to connect directly. An explicit URL applies to
 * every host (loopback too) except those `NO_PROXY` lists; `false` means never.
 */
export function proxyFor(
  target: URL,
  setting: ProxySetting,
  env: Record<string, string | undefined>,
): URL | undefined {
  if (setting === false) return undefined;
  const host = bareHost(target.hostname);
  const port = target.port || (target.protocol === "https:" ? "443" : "80");
  if (bypassed(host, port, env.NO_PROXY ?? env.no_proxy)) return undefined;
  let raw: string | undefined = setting;
  if (raw === undefined) {
    if (isLoopback(host)) return undefined;
    raw =
      target.protocol === "https:"
        ? (env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy)
        : (env.HTTP_PROXY ?? env.http_proxy);
  }
  if (raw === undefined || raw.trim() === "") return undefined;
  return parseProxyUrl(raw.trim());
}

/** Parses a proxy URL (a bare `host:port` means `http://host:port`); only `http:` proxies are supported. */
export function parseProxyUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.includes("://") ? raw : `http://${raw}`);
  } catch {
    throw new InvalidOptionError("proxy", `The proxy "${raw}" is not a URL; write it as http://host:port`);
  }
  if (url.protocol !== "http:") {
    throw new InvalidOptionError(
      "proxy",
      `The proxy "${raw}" uses ${url.protocol.replace(":", "")}; Goat speaks to proxies over http:// (CONNECT), write it as http://host:port`,
    );
  }
  return url;
}

/** True when `NO_PROXY` lists the host: `*`, an exact name or IP, or a domain (`example.com`, `.example.com`, `*.example.com`), each optionally `:port`. */
function bypassed(host: string, port: string, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  for (const raw of noProxy.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    const colon = entry.lastIndexOf(":");
    if (colon > 0 && !entry.includes("]") && /^\d+$/.test(entry.slice(colon + 1))) {
      if (entry.slice(colon + 1) !== port) continue;
      entry = entry.slice(0, colon);
    }
    entry = bareHost(entry).replace(/^\*?\./, "");
    if (host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}

function bareHost(host: string): string {
  return host.toLowerCase().replace(/^\[|\]$/g, "");
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\./.test(host);
}

/**
 * A keep-alive agent whose sockets are CONNECT tunnels through `proxy` to the request's host; for
 * `secure` targets, TLS runs inside the tunnel. A socket is handed to the request only once the
 * tunnel (and TLS session) is up, so the transport's connect limit covers the whole set-up.
 */
export function createTunnelAgent(secure: boolean, proxy: URL, connectMs: number): http.Agent {
  const agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  const auth =
    proxy.username || proxy.password
      ? `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString("base64")}`
      : undefined;
  // Node's agents accept an asynchronous createConnection that answers through the callback.
  (agent as unknown as { createConnection: CreateConnection }).createConnection = (options, done) => {
    const host = options.host ?? "localhost";
    const port = Number(options.port) || (secure ? 443 : 80);
    openTunnel(proxy, host, port, auth, connectMs).then((socket) => {
      if (!secure) return done(null, socket);
      const secured = tls.connect({ ...options, socket, servername: options.servername ?? serverName(host) });
      const onError = (error: Error) => done(error);
      secured.once("error", onError);
      secured.once("secureConnect", () => {
        secured.off("error", onError);
        done(null, secured);
      });
    }, done);
    return undefined;
  };
  return agent;
}

type CreateConnection = (
  options: tls.ConnectionOptions & { host?: string; port?: number | string },
  done: (error: Error | null, socket?: net.Socket) => void,
) => net.Socket | undefined;

/** SNI takes a host name, never an IP address. */
function serverName(host: string): string | undefined {
  return net.isIP(host) ? undefined : host;
}

/** Connects to the proxy and asks it to `CONNECT host:port`; resolves with the raw tunnel. */
function openTunnel(
  proxy: URL,
  host: string,
  port: number,
  auth: string | undefined,
  connectMs: number,
): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const authority = `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
    const req = http.request({
      host: bareHost(proxy.hostname),
      port: Number(proxy.port) || 80,
      method: "CONNECT",
      path: authority,
      headers: { host: authority, ...(auth ? { "proxy-authorization": auth } : {}) },
      agent: false,
    });
    // The transport gives up on its own after connectMs; this ends the CONNECT it left behind. A
    // stall timer, so time this process spent busy elsewhere is not blamed on the proxy.
    const limit =
      connectMs > 0
        ? startStallTimer(connectMs, () => req.destroy(new Error(`no answer within ${connectMs} ms`)))
        : undefined;
    req.once("connect", (res, socket, head) => {
      limit?.clear();
      if (res.statusCode !== 200) {
        socket.destroy();
        reject(
          new Error(
            `the proxy ${proxy.origin} refused CONNECT ${authority}: ${res.statusCode} ${res.statusMessage ?? ""}`.trim(),
          ),
        );
        return;
      }
      // Bytes the proxy sent after its answer belong to the tunnel.
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    req.once("error", (error) => {
      limit?.clear();
      reject(new Error(`could not reach the proxy ${proxy.origin} (${error.message})`, { cause: error }));
    });
    req.end();
  });
}
