/**
 * `goat serve`'s HTTP server: a local viewer of the sessions under Goat's home folder, or of the
 * durable sessions in a PostgreSQL database (`viewer-source.ts`). Every route reads; none changes a
 * session. It binds
 * 127.0.0.1 (another interface only when asked), and every request must carry the random access
 * token printed with the URL; there are no CORS headers and the Host header must name the server
 * itself, so neither another site in the browser nor a DNS-rebinding page can read transcripts.
 *
 * Routes (all GET, all with `?token=`):
 *   /                         the viewer page
 *   /api/sessions             the sessions, newest first (`?cwd=` for one project, `?q=` to search)
 *   /api/session?id=          one session's entries, and its subagents' transcripts
 *   /api/live?id=&from=       server-sent events: entries appended after `from` (a byte offset, or
 *                             a durable session's message position)
 *   /export?id=               the session as one self-contained HTML file (a download)
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportPage, viewerPage } from "./page.js";
import type { ViewerSource } from "./viewer-source.js";

/** Options of the viewer server. */
export interface ViewerServerOptions {
  /** Where the sessions come from (the caller closes it). */
  source: ViewerSource;
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: 32 random bytes, hex. */
  token?: string;
}

/** A running viewer. */
export interface ViewerServer {
  /** The address to open, token included. */
  url: string;
  token: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the viewer server. */
export async function startViewerServer(options: ViewerServerOptions): Promise<ViewerServer> {
  const token = options.token ?? randomBytes(32).toString("hex");
  const host = options.host ?? "127.0.0.1";
  const shownHost = host.includes(":") ? `[${host}]` : host;
  const server = http.createServer((req, res) => {
    handle(req, res, { source: options.source, token, port: actualPort(), shownHost }).catch((error) =>
      sendFailure(req, res, error),
    );
  });
  const actualPort = () => (server.address() as AddressInfo).port;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = actualPort();
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    token,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Context {
  source: ViewerSource;
  token: string;
  port: number;
  /** The host the server was asked to bind, as it appears in a URL. */
  shownHost: string;
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, ctx: Context): Promise<void> {
  const url = new URL(req.url ?? "/", "http://viewer.invalid");
  if (!hostIsSelf(req.headers.host, ctx)) return send(res, 403, "text/plain", "Forbidden host.");
  if (!tokenMatches(url.searchParams.get("token"), ctx.token))
    return send(
      res,
      401,
      "text/plain",
      "goat serve: open the URL printed by `goat serve` (it carries the token).",
    );
  if (req.method !== "GET") return send(res, 405, "text/plain", "Only GET.");
  const id = url.searchParams.get("id") ?? "";
  switch (url.pathname) {
    case "/":
      return sendPage(res, viewerPage(ctx.source.kind));
    case "/api/sessions": {
      const sessions = await ctx.source.list({
        cwd: url.searchParams.get("cwd") ?? undefined,
        search: url.searchParams.get("q") ?? undefined,
      });
      return send(res, 200, "application/json", JSON.stringify(sessions));
    }
    case "/api/session": {
      const view = await ctx.source.load(id);
      if (!view) return send(res, 404, "application/json", JSON.stringify({ error: `No session ${id}.` }));
      return send(res, 200, "application/json", JSON.stringify(view));
    }
    case "/api/live":
      return ctx.source.follow(id, Number(url.searchParams.get("from") ?? 0), req, res);
    case "/export": {
      const view = await ctx.source.load(id);
      if (!view) return send(res, 404, "text/plain", `No session ${id}.`);
      res.setHeader("content-disposition", `attachment; filename="goat-session-${view.sessionId}.html"`);
      return sendPage(res, exportPage(view));
    }
    default:
      return send(res, 404, "text/plain", "Not found.");
  }
}

/**
 * Only requests addressed to this server by its own name: a page on another site that rebinds its
 * DNS name to 127.0.0.1 sends its own name as Host, and is refused.
 */
function hostIsSelf(host: string | undefined, ctx: Context): boolean {
  if (!host) return false;
  const names = ["127.0.0.1", "localhost", "[::1]", ctx.shownHost];
  return names.some((name) => host.toLowerCase() === `${name}:${ctx.port}`);
}

function tokenMatches(given: string | null, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Headers every answer carries: nothing may be framed, sniffed, cached or sent elsewhere. */
function baseHeaders(res: http.ServerResponse): void {
  res.setHeader("x-content-type-options", "nosniff");
  res.setHeader("x-frame-options", "DENY");
  res.setHeader("referrer-policy", "no-referrer");
  res.setHeader("cache-control", "no-store");
}

/**
 * A request that failed: the API answers JSON the page shows (`{ error }`, 503 when the database did
 * not answer in time, so the page can say which database), the pages plain text.
 */
function sendFailure(req: http.IncomingMessage, res: http.ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const message = `goat serve: ${(error as Error).message}`;
  const unreachable = (error as { code?: unknown }).code === "database_unreachable";
  if ((req.url ?? "").startsWith("/api/"))
    send(res, unreachable ? 503 : 500, "application/json", JSON.stringify({ error: message }));
  else send(res, unreachable ? 503 : 500, "text/plain", message);
}

function send(res: http.ServerResponse, status: number, type: string, body: string): void {
  baseHeaders(res);
  res.writeHead(status, { "content-type": `${type}; charset=utf-8` });
  res.end(body);
}

/**
 * A page with a strict Content-Security-Policy: only the page's own script (by nonce) runs, so even a
 * rendering bug that let transcript text become markup could not execute it.
 */
function sendPage(res: http.ServerResponse, page: { html: string; nonce: string }): void {
  baseHeaders(res);
  res.setHeader(
    "content-security-policy",
    `default-src 'none'; script-src 'nonce-${page.nonce}'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  );
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(page.html);
}
