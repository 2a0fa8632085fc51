/**
 * A real HTTP server on 127.0.0.1 for the web tools' tests: routes by path, a log of every request
 * (path and Host header), and a close that ends open connections, so a test that leaves one open
 * still stops it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** A route: answers one request. */
export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

/** A running test server. */
export interface WebServer {
  port: number;
  /** `http://127.0.0.1:PORT` + path. */
  url(path: string): string;
  /** Requests received, in order. */
  hits: Array<{ path: string; host: string | undefined }>;
  close(): Promise<void>;
}

/** Starts a server with `routes` (unknown paths: 404). */
export async function startWebServer(routes: Record<string, Route>): Promise<WebServer> {
  const hits: WebServer["hits"] = [];
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    hits.push({ path: req.url ?? "/", host: req.headers.host });
    const route = routes[path];
    if (!route) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    Promise.resolve(route(req, res)).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `chunk` until `total` bytes went out or the client left; resolves with the bytes written. */
export async function writeUntilClosed(
  res: http.ServerResponse,
  chunk: Buffer,
  total: number,
): Promise<number> {
  let written = 0;
  while (written < total && !res.destroyed) {
    const ok = res.write(chunk);
    written += chunk.length;
    if (!ok) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  }
  if (!res.destroyed) res.end();
  return written;
}
