/**
 * `betas` through query(): the Anthropic beta features reach Anthropic-type providers as the
 * `anthropic-beta` header (added to one the provider config already sends), never an
 * OpenAI-compatible provider; a value that is not a list of beta names is refused.
 */
import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../src/errors.js";
import { query } from "../../src/sdk/query.js";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, useMockProvider } from "./helpers.js";

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
});
