/**
 * Code written for the Claude Agent SDK imports `Options` and `AbortError` from the package root:
 * both are there, under those names. `Options` is what `query()` takes (a run typed with it works),
 * and `AbortError` is a Goat error a caller can catch by either class.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AbortError, GoatError, type Options, type QueryOptions, query } from "../../src/index.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

let mock: MockProvider;
let cwd: string;
beforeAll(async () => {
  mock = await startMockProvider();
  cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-claude-names-")));
});
afterAll(async () => {
  await mock.close();
  fs.rmSync(cwd, { recursive: true, force: true });
});

describe("the Claude Agent SDK's names at the root", () => {
  it("Options types query()'s options", async () => {
    mock.enqueue(reply.text("hi"));
    const options: Options = {
      model: "anthropic/claude-sonnet-4-5",
      provider: { type: "anthropic", baseURL: mock.anthropicBaseURL, apiKey: "test-key" },
      cwd,
      persistSession: false,
      tools: [],
    };
    // One type under two names: either is accepted where the other is asked for.
    const same: QueryOptions = options;
    let result: string | undefined;
    for await (const message of query({ prompt: "hello", options: same })) {
      if (message.type === "result" && message.subtype === "success") result = message.result;
    }
    expect(result).toBe("hi");
  });

  it("AbortError is an Error and a GoatError, named and coded as an abort", () => {
    const error = new AbortError();
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(GoatError);
    expect(error.name).toBe("AbortError");
    expect(error.code).toBe("aborted");
    expect(new AbortError("stopped").message).toBe("stopped");
  });
});
