/**
 * Record and replay a model provider's HTTP traffic, so a test of your agent can run offline and
 * deterministically against answers a real model once gave.
 *
 * Recording: `startRecorder({ target })` is a local HTTP server that forwards every request to the
 * real provider, streams the answer back unchanged, and keeps each exchange (request, status,
 * headers, the raw body, SSE included). `save()` writes them to a cassette file with credentials
 * redacted. Replaying: `startReplayer({ cassette })` answers the same requests from the file in the
 * same order, and answers a request the cassette does not expect with a 400 that says what differed,
 * so a changed prompt fails the test loudly instead of replaying a stale answer.
 *
 * Point the provider at either server with its base URL, e.g.
 * `provider: { type: "anthropic", baseURL: recorder.baseURL, apiKey }` (for OpenAI-compatible
 * providers include the path prefix: `${recorder.baseURL}/v1`).
 */
import { readFile, writeFile } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";

/** Request headers never written to a cassette's values (matched case-insensitively). */
export const REDACTED_HEADERS: readonly string[] = [
  "authorization",
  "x-api-key",
  "api-key",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-goog-api-key",
];
/** Query parameters whose values are redacted (some providers take the key in the URL). */
const REDACTED_PARAMS = ["key", "api_key", "api-key"];
/** Hop-by-hop headers that must not be copied between the two connections. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "host", "content-length"]);

/** One request and the answer it got. */
export interface CassetteInteraction {
  request: { method: string; path: string; headers: Record<string, string>; body: unknown };
  /**
   * The answer. `body` is its text, or base64 when `encoding` is `"base64"`: a binary stream (Bedrock's
   * AWS event-stream frames) would not survive a round trip through UTF-8.
   */
  response: { status: number; headers: Record<string, string>; body: string; encoding?: "base64" };
}

/** Answers whose bytes are not text (Bedrock's `application/vnd.amazon.eventstream`). */
function isBinaryAnswer(headers: Record<string, string | string[] | undefined>): boolean {
  return String(headers["content-type"] ?? "").startsWith("application/vnd.amazon.eventstream");
}

/** A cassette file's content. */
export interface Cassette {
  version: 1;
  interactions: CassetteInteraction[];
}

/** A running recorder. */
export interface CassetteRecorder {
  /** Base URL to give the provider (`http://127.0.0.1:PORT`). */
  readonly baseURL: string;
  /** The exchanges recorded so far (credentials already redacted). */
  readonly interactions: CassetteInteraction[];
  /** Writes the cassette to `path` (default: the `cassette` path given at start). */
  save(path?: string): Promise<void>;
  close(): Promise<void>;
}

/** Options of `startRecorder`. */
export interface RecorderOptions {
  /** The real provider's origin, e.g. `https://api.anthropic.com` (a path prefix is kept). */
  target: string;
  /** Where `save()` writes by default. */
  cassette?: string;
  /** More header names to redact, beyond REDACTED_HEADERS. */
  redactHeaders?: string[];
}

/** Starts a recording proxy on 127.0.0.1 in front of `target`. */
export async function startRecorder(options: RecorderOptions): Promise<CassetteRecorder> {
  const target = new URL(options.target);
  const prefix = target.pathname.replace(/\/$/, "");
  const redact = new Set([...REDACTED_HEADERS, ...(options.redactHeaders ?? []).map((h) => h.toLowerCase())]);
  const client = target.protocol === "https:" ? https : http;
  const interactions: CassetteInteraction[] = [];

  const server = http.createServer((req, res) => {
    collect(req).then((raw) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = String(value);
      }
      const upstream = client.request(
        {
          protocol: target.protocol,
          hostname: target.hostname,
          port: target.port || undefined,
          method: req.method,
          path: prefix + (req.url ?? "/"),
          headers: { ...headers, "content-length": String(raw.length) },
        },
        (answer) => {
          const answerHeaders: Record<string, string> = {};
          for (const [name, value] of Object.entries(answer.headers)) {
            if (value !== undefined && !HOP_BY_HOP.has(name)) answerHeaders[name] = String(value);
          }
          res.writeHead(answer.statusCode ?? 502, answerHeaders);
          const parts: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => {
            parts.push(chunk);
            res.write(chunk);
          });
          answer.on("end", () => {
            res.end();
            interactions.push({
              request: {
                method: req.method ?? "GET",
                path: redactUrl(req.url ?? "/"),
                headers: redactHeaders(headers, redact),
                body: parseBody(raw),
              },
              response: {
                status: answer.statusCode ?? 502,
                headers: redactHeaders(answerHeaders, redact),
                ...(isBinaryAnswer(answer.headers)
                  ? { body: Buffer.concat(parts).toString("base64"), encoding: "base64" as const }
                  : { body: Buffer.concat(parts).toString("utf8") }),
              },
            });
          });
          answer.on("error", (error) => res.destroy(error));
        },
      );
      upstream.on("error", (error) => {
        if (res.headersSent) res.destroy(error);
        else {
          res.writeHead(502, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: `recorder: upstream failed: ${error.message}` } }));
        }
      });
      upstream.end(raw);
    }, res.destroy.bind(res));
  });
  const baseURL = await listen(server);
  return {
    baseURL,
    interactions,
    async save(path = options.cassette) {
      if (path === undefined) throw new Error("recorder.save(): give a path, or `cassette` when starting.");
      const cassette: Cassette = { version: 1, interactions };
      await writeFile(path, `${JSON.stringify(cassette, null, 2)}\n`);
    },
    close: () => stop(server),
  };
}

/** A running replayer. */
export interface CassetteReplayer {
  /** Base URL to give the provider (`http://127.0.0.1:PORT`). */
  readonly baseURL: string;
  /** Interactions not yet replayed. */
  remaining(): number;
  /** Requests the cassette did not expect, with what differed. */
  readonly mismatches: string[];
  close(): Promise<void>;
}

/** Options of `startReplayer`. */
export interface ReplayerOptions {
  /** A cassette file path, or a cassette already loaded. */
  cassette: string | Cassette;
  /**
   * Also require each request body to equal the recorded one (default true). Off, only the method
   * and path are checked, for tests that vary the prompt on purpose.
   */
  matchBody?: boolean;
  /**
   * Applied to the recorded and the received body before they are compared. The default
   * (`withoutSystemPrompt`) drops the system prompt, which carries the date and the working directory
   * and so differs from run to run, and the per-session `prompt_cache_key`; pass `(body) => body` to
   * compare all.
   */
  normalize?: (body: unknown) => unknown;
}

/**
 * The default `normalize`: the request body without its system prompt (Anthropic `system`, Responses
 * `instructions`, Gemini `systemInstruction`, OpenAI `system`/`developer` messages) and without the
 * Responses API's `prompt_cache_key`, which is new for every session.
 */
export function withoutSystemPrompt(body: unknown): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const {
    system: _system,
    instructions: _instructions,
    systemInstruction: _systemInstruction,
    prompt_cache_key: _cacheKey,
    ...rest
  } = body as Record<string, unknown>;
  if (Array.isArray(rest.messages)) {
    rest.messages = rest.messages.filter(
      (m) =>
        !(
          typeof m === "object" &&
          m !== null &&
          ["system", "developer"].includes((m as { role?: string }).role ?? "")
        ),
    );
  }
  return rest;
}

/** Starts a server on 127.0.0.1 answering from a cassette, in recorded order. */
export async function startReplayer(options: ReplayerOptions): Promise<CassetteReplayer> {
  const cassette =
    typeof options.cassette === "string"
      ? (JSON.parse(await readFile(options.cassette, "utf8")) as Cassette)
      : options.cassette;
  if (cassette?.version !== 1 || !Array.isArray(cassette.interactions)) {
    throw new Error("Not a Goat cassette (expected {version: 1, interactions: [...]}).");
  }
  const queue = [...cassette.interactions];
  const mismatches: string[] = [];
  const matchBody = options.matchBody !== false;
  const normalize = options.normalize ?? withoutSystemPrompt;

  const server = http.createServer((req, res) => {
    collect(req).then((raw) => {
      const next = queue[0];
      const got = `${req.method} ${redactUrl(req.url ?? "/")}`;
      let problem: string | undefined;
      if (next === undefined) problem = `cassette exhausted: no recorded answer for ${got}`;
      else if (`${next.request.method} ${next.request.path}` !== got) {
        problem = `cassette expected ${next.request.method} ${next.request.path}, got ${got}`;
      } else if (matchBody) {
        const where = firstDifference(normalize(next.request.body), normalize(parseBody(raw)));
        if (where !== undefined)
          problem = `cassette: the body of ${got} differs from the recorded one at ${where}`;
      }
      if (problem !== undefined || next === undefined) {
        mismatches.push(problem ?? "");
        res.writeHead(400, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: problem } }),
        );
        return;
      }
      queue.shift();
      res.writeHead(next.response.status, next.response.headers);
      res.end(
        next.response.encoding === "base64" ? Buffer.from(next.response.body, "base64") : next.response.body,
      );
    }, res.destroy.bind(res));
  });
  const baseURL = await listen(server);
  return { baseURL, remaining: () => queue.length, mismatches, close: () => stop(server) };
}

function collect(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (chunk: Buffer) => parts.push(chunk));
    req.on("end", () => resolve(Buffer.concat(parts)));
    req.on("error", reject);
  });
}

function parseBody(raw: Buffer): unknown {
  if (raw.length === 0) return null;
  const text = raw.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function redactHeaders(headers: Record<string, string>, redact: Set<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = redact.has(name.toLowerCase()) ? "[redacted]" : value;
  }
  return out;
}

function redactUrl(url: string): string {
  const question = url.indexOf("?");
  if (question === -1) return url;
  const params = new URLSearchParams(url.slice(question + 1));
  for (const name of REDACTED_PARAMS) if (params.has(name)) params.set(name, "[redacted]");
  return `${url.slice(0, question)}?${params.toString()}`;
}

/** Where two JSON values first differ, as a JSON pointer, or undefined when equal. */
function firstDifference(a: unknown, b: unknown, at = ""): string | undefined {
  if (a === b) return undefined;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return at || "/";
  if (Array.isArray(a) !== Array.isArray(b)) return at || "/";
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const diff = firstDifference(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      `${at}/${key}`,
    );
    if (diff !== undefined) return diff;
  }
  return undefined;
}

async function listen(server: http.Server): Promise<string> {
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function stop(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
