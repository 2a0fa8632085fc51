/**
 * WebSearch's built-in backends against local servers speaking their real JSON (SearXNG's
 * `/search?format=json`, Brave's `/res/v1/web/search`), the domain filters, the errors a user can act
 * on, and a backend of the host's own making.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateToolInput } from "../../../src/tools/define-tool.js";
import { createToolSessionState, type ToolContext } from "../../../src/tools/types.js";
import { createSearchBackend, type WebSearchBackend } from "../../../src/tools/web/search-backend.js";
import { createWebSearchTool, type WebSearchDetails } from "../../../src/tools/web/web-search.js";
import { startWebServer, type WebServer } from "./web-server.js";

let server: WebServer;
const seen: Array<{ path: string; token?: string }> = [];

beforeAll(async () => {
  server = await startWebServer({
    "/searx/search": (req, res) => {
      seen.push({ path: req.url ?? "" });
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          query: "q",
          number_of_results: 3,
          results: [
            {
              url: "https://docs.goat.example/a",
              title: "Docs A",
              content: "About A",
              engine: "e",
              score: 1,
            },
            {
              url: "https://blog.example.org/b",
              title: "Blog B",
              content: "",
              engine: "e",
              publishedDate: "2026-01-02",
            },
            { url: "https://www.other.example/c", title: "", content: "C", engine: "e" },
          ],
          answers: [],
          corrections: [],
          infoboxes: [],
          suggestions: [],
          unresponsive_engines: [],
        }),
      );
    },
    "/closed/search": (_req, res) => {
      res.writeHead(403, { "content-type": "text/html" }).end("Forbidden");
    },
    "/brave": (req, res) => {
      seen.push({ path: req.url ?? "", token: String(req.headers["x-subscription-token"]) });
      if (req.headers["x-subscription-token"] !== "good-key") {
        res.writeHead(401, { "content-type": "application/json" }).end('{"type":"ErrorResponse"}');
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          type: "search",
          query: { original: "goat" },
          web: {
            type: "search",
            results: [
              {
                title: "The <strong>Goat</strong> agent",
                url: "https://goat.example/",
                description: "An <strong>agent</strong> loop &amp; more",
                age: "2 days ago",
                type: "search_result",
              },
            ],
          },
        }),
      );
    },
  });
});
afterAll(() => server.close());

function context(): ToolContext {
  const signal = new AbortController().signal;
  return {
    signal,
    cwd: process.cwd(),
    sessionId: "s",
    toolUseId: "t",
    state: createToolSessionState(),
    onUpdate: () => {},
  };
}

async function search(backend: WebSearchBackend, input: Record<string, unknown>) {
  const tool = createWebSearchTool(backend);
  const checked = await validateToolInput(tool, input);
  if (!checked.ok) throw new Error(checked.message);
  const result = await tool.execute(checked.value, context());
  return {
    text: String(result.content),
    isError: result.isError,
    details: result.details as WebSearchDetails,
  };
}

describe("WebSearch", () => {
  it("SearXNG: titles, links and snippets; one allowed domain narrows the query; the filters apply", async () => {
    const backend = createSearchBackend(`searxng:${server.url("/searx")}`, {});
    const all = await search(backend, { query: "goat agent" });
    expect(seen.at(-1)?.path).toBe("/searx/search?q=goat+agent&format=json");
    expect(all.text).toContain("1. [Docs A](https://docs.goat.example/a)\n   About A");
    expect(all.text).toContain("2. [Blog B](https://blog.example.org/b)\n   2026-01-02");
    expect(all.text).toContain("3. [https://www.other.example/c](https://www.other.example/c)\n   C");
    expect(all.details.results).toHaveLength(3);

    const only = await search(backend, { query: "goat", allowed_domains: ["goat.example"] });
    expect(seen.at(-1)?.path).toBe("/searx/search?q=goat+site%3Agoat.example&format=json");
    expect(only.details.results.map((r) => r.url)).toEqual(["https://docs.goat.example/a"]);
    expect(only.details.filteredOut).toBe(2);

    const blocked = await search(backend, {
      query: "goat",
      blocked_domains: ["https://www.other.example/", "example.org"],
    });
    expect(blocked.details.results.map((r) => r.url)).toEqual(["https://docs.goat.example/a"]);
  });

  it("SearXNG without the JSON format says what to change", async () => {
    const r = await search(createSearchBackend(`searxng:${server.url("/closed")}`, {}), { query: "goat" });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(
      /refused the JSON format \(403\): add "json" to search.formats in its settings.yml/,
    );
  });

  it("Brave: the key goes in X-Subscription-Token, markup is removed, a refused key is explained", async () => {
    const brave = createSearchBackend(
      { provider: "brave", url: server.url("/brave") },
      { BRAVE_API_KEY: "good-key" },
    );
    const r = await search(brave, { query: "goat" });
    expect(seen.at(-1)).toEqual({ path: "/brave?q=goat&count=10", token: "good-key" });
    expect(r.text).toContain(
      "1. [The Goat agent](https://goat.example/)\n   2 days ago · An agent loop & more",
    );
    const refused = await search(
      createSearchBackend({ provider: "brave", url: server.url("/brave"), apiKey: "bad" }, {}),
      {
        query: "goat",
      },
    );
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/Brave Search refused the API key \(401\): check BRAVE_API_KEY/);
  });

  it("takes a backend of the host's own making, and turns its failure into an error result", async () => {
    const mine: WebSearchBackend = {
      name: "mine",
      search: async (query, { maxResults }) => [
        { title: `About ${query}`, url: "https://mine.example/", snippet: String(maxResults) },
      ],
    };
    expect(createSearchBackend(mine, {})).toBe(mine);
    expect((await search(mine, { query: "goats" })).text).toContain(
      "1. [About goats](https://mine.example/)\n   10",
    );
    const broken: WebSearchBackend = {
      name: "broken",
      search: async () => {
        throw new Error("quota exceeded");
      },
    };
    const r = await search(broken, { query: "goats" });
    expect(r).toMatchObject({ isError: true, text: "The search failed (broken): quota exceeded" });
  });
});
