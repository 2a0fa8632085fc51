/**
 * `betas` through query(): the Anthropic beta features reach Anthropic-type providers as the
 * `anthropic-beta` header (added to one the provider config already sends), never an
 * OpenAI-compatible provider; a value that is not a list of beta names is refused. The 1M-context
 * beta gives Claude Sonnet 4 and 4.5 their million-token window (compaction waits for it) and the
 * long-context prices past 200,000 prompt tokens.
 */
import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../src/errors.js";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { reply } from "../support/mock-provider.js";
import { collect, echoTool, mockOptions, resultOf, useMockProvider } from "./helpers.js";

const mock = useMockProvider();

describe("betas", () => {
  it("are sent as anthropic-beta to Anthropic, after the provider's own, and not to an OpenAI-compatible API", async () => {
    const betas = ["context-1m-2025-08-07", "interleaved-thinking-2025-05-14"];
    mock.enqueue(reply.text("a"), reply.text("b"), reply.text("c"), reply.text("d"));
    await collect(query({ prompt: "x", options: mockOptions(mock, "anthropic", { betas }) }));
    await collect(query({ prompt: "x", options: mockOptions(mock, "openai", { betas }) }));
    await collect(query({ prompt: "x", options: mockOptions(mock, "anthropic") }));
    const own = mockOptions(mock, "anthropic", { betas });
    own.provider = {
      ...(own.provider as object),
      headers: { "anthropic-beta": "files-api-2025-04-14" },
    } as never;
    await collect(query({ prompt: "x", options: own }));
    const sent = mock.requests.map((r) => r.headers["anthropic-beta"]);
    expect(sent).toEqual([
      "context-1m-2025-08-07,interleaved-thinking-2025-05-14",
      undefined,
      undefined,
      "files-api-2025-04-14,context-1m-2025-08-07,interleaved-thinking-2025-05-14",
    ]);
  });

  it("a value that is not a list of beta names is refused, naming the option", () => {
    for (const betas of ["context-1m-2025-08-07", ["bad beta\r\nX-Injected: 1"]]) {
      expect(() => query({ prompt: "x", options: { betas } as never })).toThrow(InvalidOptionError);
    }
  });

  describe("context-1m", () => {
    /**
     * A session on Claude Sonnet 4.5 whose first call reports a 250,000-token prompt, then a tool
     * round: returns how often the history was compacted and the run's result.
     */
    async function longSession(extra: QueryOptions) {
      let compactions = 0;
      mock.enqueue(
        reply.toolCalls([{ name: "echo", input: { text: "a" } }], {
          usage: { input: 250_000, output: 1_000 },
        }),
        reply.text("done", { usage: { input: 1_000, output: 100 } }),
      );
      const messages = await collect(
        query({
          prompt: "x",
          options: mockOptions(mock, "anthropic", {
            model: "anthropic/claude-sonnet-4-5-20250929",
            tools: [echoTool],
            compactor: async (history) => {
              compactions++;
              return { messages: history.slice(-1), summary: "s", preTokens: 250_000, postTokens: 10 };
            },
            ...extra,
          }),
        }),
      );
      return { compactions, result: resultOf(messages) as any };
    }

    it("gives Sonnet 4.5 a 1M window: 250,000 tokens are not compacted with the beta, and are without it", async () => {
      const withBeta = await longSession({ betas: ["context-1m-2025-08-07"] });
      expect(withBeta.compactions).toBe(0);
      expect(withBeta.result.modelUsage["anthropic/claude-sonnet-4-5-20250929"].contextWindow).toBe(
        1_000_000,
      );
      const without = await longSession({});
      expect(without.compactions).toBe(1);
      expect(without.result.modelUsage["anthropic/claude-sonnet-4-5-20250929"].contextWindow).toBe(200_000);
    });

    it("prices a call past 200,000 prompt tokens at the long-context rates (2x input, 1.5x output)", async () => {
      const { result } = await longSession({ betas: ["context-1m-2025-08-07"] });
      // 250,000 in at $6 and 1,000 out at $22.50 per million, then a short call at $3 / $15.
      const expected = (250_000 * 6 + 1_000 * 22.5 + 1_000 * 3 + 100 * 15) / 1_000_000;
      expect(result.total_cost_usd).toBeCloseTo(expected, 9);
    });

    it("leaves a model the user described in models as the user described it", async () => {
      const { compactions } = await longSession({
        betas: ["context-1m-2025-08-07"],
        models: [
          {
            id: "claude-sonnet-4-5",
            provider: "anthropic",
            contextWindow: 200_000,
            maxOutputTokens: 64_000,
            pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
          },
        ],
      });
      expect(compactions).toBe(1);
    });
  });
});
