/**
 * The web tools through the `goat` program: WebFetch with a rule naming the local host and the small
 * model from --small-fast-model, WebSearch offered by --web-search, and what permissions do without a
 * rule in print mode (there is nobody to ask, so the call is denied).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { startWebServer, type WebServer } from "../tools/web/web-server.js";
import { jsonLines, runCli, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-web");
let web: WebServer;
beforeAll(async () => {
  web = await startWebServer({
    "/notes": (_req, res) => {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end("<h1>Release notes</h1><p>Goat 2.0 is out.</p>");
    },
    "/search": (_req, res) => {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(
          JSON.stringify({ results: [{ url: "https://goat.example/", title: "Goat", content: "An agent" }] }),
        );
    },
  });
});
afterAll(() => web.close());

const run = (args: string[]) => runCli(args, { env: fx.env, cwd: fx.work.path });
const fetchCall = () =>
  reply.toolCalls([
    { id: "call_1", name: "WebFetch", input: { url: web.url("/notes"), prompt: "What is out?" } },
  ]);

describe("goat with the web tools", () => {
  it("WebFetch with a domain rule and --small-fast-model: the small model answers, its cost is in the result", async () => {
    fx.mock.enqueue(
      fetchCall(),
      reply.text("Goat 2.0.", { usage: { input: 1_000, output: 10 } }),
      reply.text("done"),
    );
    const r = await run([
      "-p",
      "what is new?",
      "--output-format",
      "stream-json",
      "--verbose",
      "--allowedTools",
      "WebFetch(domain:127.0.0.1)",
      "--small-fast-model",
      "haiku",
    ]);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines[0].tools).toContain("WebFetch");
    expect(lines[0].tools).not.toContain("WebSearch");
    expect(fx.mock.requests[1].body.model).toBe("claude-haiku-4-5");
    expect(JSON.stringify(fx.mock.requests[1].body)).toContain("# Release notes");
    const toolResult = lines.find((m) => m.type === "user")?.message.content[0];
    expect(toolResult).toMatchObject({ type: "tool_result", content: "Goat 2.0." });
    expect(lines.at(-1).modelUsage["anthropic/claude-haiku-4-5"].inputTokens).toBe(1_000);
  });

  it("without a rule, print mode denies WebFetch (nobody to ask) and the page is never fetched", async () => {
    const before = web.hits.length;
    fx.mock.enqueue(fetchCall(), reply.text("done"));
    const r = await run(["-p", "what is new?", "--output-format", "json"]);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)[0].permission_denials).toMatchObject([{ tool_name: "WebFetch" }]);
    expect(web.hits.length).toBe(before);
  });

  it("--web-search offers WebSearch, and --dangerously-skip-permissions runs it", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ id: "call_1", name: "WebSearch", input: { query: "goat" } }]),
      reply.text("done"),
    );
    const r = await run([
      "-p",
      "search",
      "--output-format",
      "stream-json",
      "--verbose",
      "--web-search",
      `searxng:${web.url("")}`,
      "--dangerously-skip-permissions",
    ]);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines[0].tools).toContain("WebSearch");
    const toolResult = lines.find((m) => m.type === "user")?.message.content[0];
    expect(toolResult.content).toContain("1. [Goat](https://goat.example/)\n   An agent");
  });
});
