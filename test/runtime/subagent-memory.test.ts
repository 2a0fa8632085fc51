/**
 * A subagent's prompt carries the session's start-up memory (CLAUDE.md and its kin), as Claude Code's
 * subagents do: the project's rules bind its work too. None when the session reads no memory.
 * Before, a subagent's system prompt was its definition's prompt alone.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf, tempDir, useMockProvider } from "./helpers.js";

const mock = useMockProvider();

async function runWithSubagent(extra: QueryOptions) {
  const cwd = tempDir("goat-subagent-memory-");
  const home = tempDir("goat-subagent-memory-home-");
  fs.writeFileSync(path.join(cwd, "CLAUDE.md"), "MEMORY-MARKER: never touch the vendor folder.\n");
  mock.enqueue(
    reply.toolCalls([{ name: "Task", input: { subagent_type: "helper", description: "d", prompt: "go" } }]),
    reply.text("helped"),
    reply.text("done"),
  );
  const messages = await collect(
    query({
      prompt: "start",
      options: mockOptions(mock, "anthropic", {
        cwd,
        env: { PATH: process.env.PATH, GOAT_HOME: home, CLAUDE_CONFIG_DIR: path.join(home, "claude") },
        agents: { helper: { description: "Helps", prompt: "AGENT-PROMPT" } },
        ...extra,
      }),
    }),
  );
  expect(resultOf(messages).subtype).toBe("success");
  return JSON.stringify(mock.requests[1].body.system);
}

describe("subagents and memory", () => {
  it("the subagent's system prompt is its own prompt followed by the project's CLAUDE.md", async () => {
    const system = await runWithSubagent({ settingSources: ["project"] });
    expect(system).toContain("AGENT-PROMPT");
    expect(system).toContain("MEMORY-MARKER");
    expect(system.indexOf("AGENT-PROMPT")).toBeLessThan(system.indexOf("MEMORY-MARKER"));
  });

  it("a session that reads no memory gives its subagents none", async () => {
    const system = await runWithSubagent({ settingSources: [] });
    expect(system).toContain("AGENT-PROMPT");
    expect(system).not.toContain("MEMORY-MARKER");
  });
});
