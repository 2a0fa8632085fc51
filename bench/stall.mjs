/**
 * Measurement: how long a stalled provider holds a model call before it fails with a typed error. A
 * local server (1) accepts the request and never answers, (2) sends the headers and one event, then
 * goes silent. Each is run with small limits (250 ms) and reports the time from the stall to the
 * error and its kind; a call still waiting after `cap` ms is reported as `hung`. With `--defaults`, the
 * default limits are measured instead (about a minute each). Pass another build's dist/ to compare.
 *
 *   npm run build && node bench/stall.mjs [--defaults] [dist=dist] [cap ms=5000]
 */
import http from "node:http";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const defaults = args.includes("--defaults");
const [distArg, capArg] = args.filter((a) => a !== "--defaults");
const dist = resolve(root, distArg ?? "dist");
const CAP = Number(capArg ?? (defaults ? 180_000 : 5000));
const { createAnthropicProvider } = await import(pathToFileURL(join(dist, "llm/anthropic.js")).href);

const firstEvent = `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { id: "m", usage: { input_tokens: 1 } } })}\n\n`;

async function measure(kind) {
  let stalledAt = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (kind === "no answer") {
        stalledAt = performance.now();
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(firstEvent, () => {
        stalledAt = performance.now();
      });
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const limits = defaults ? undefined : { firstByteMs: 250, idleMs: 250 };
  const provider = createAnthropicProvider({
    baseURL: `http://127.0.0.1:${server.address().port}`,
    apiKey: "k",
    timeouts: limits,
  });
  const controller = new AbortController();
  const cap = setTimeout(() => controller.abort(), CAP);
  let outcome;
  try {
    for await (const _ of provider.stream({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      signal: controller.signal,
    })) {
      // drain
    }
    outcome = { kind: "ended" };
  } catch (error) {
    outcome = controller.signal.aborted
      ? { kind: "hung", msAfterStall: Math.round(performance.now() - stalledAt) }
      : { kind: error.kind, msAfterStall: Math.round(performance.now() - stalledAt) };
  }
  clearTimeout(cap);
  server.closeAllConnections();
  server.close();
  return outcome;
}

const result = { bench: "stall", dist, limits: defaults ? "defaults" : "250 ms", capMs: CAP };
for (const kind of ["no answer", "silent after 1 event"]) result[kind] = await measure(kind);
console.log(JSON.stringify(result));
