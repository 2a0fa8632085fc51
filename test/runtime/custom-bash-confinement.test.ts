/**
 * What runs without asking runs confined: a Bash line the permission engine allows on its own
 * analysis goes only to a Bash tool that runs it confined (`Tool.confines`). A host's own Bash tool
 * that does not (an editor's terminal, a remote shell) is asked about instead, where Goat's own Bash
 * runs the same read-only line without a question.
 */
import { describe, expect, it } from "vitest";
import { query } from "../../src/sdk/query.js";
import { scriptedModel } from "../../src/testing/scripted-model.js";
import { bashTool } from "../../src/tools/bash.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { jsonSchema } from "../../src/tools/tool-schema.js";
import { reply } from "../support/mock-provider.js";
import { collect, scriptedOptions, tempDir } from "./helpers.js";

/** A Bash of the host's own: same name and input, runs nothing here, says what it was given. */
const hostBash = defineTool({
  name: "Bash",
  description: bashTool.description,
  inputSchema: jsonSchema<{ command: string }>(bashTool.jsonSchema as never),
  sideEffect: "mutating",
  execute: async (input: { command: string }) => ({ content: `ran elsewhere: ${input.command}` }),
});

async function asksFor(tool: typeof hostBash | "Bash"): Promise<{ asked: string[]; result: string }> {
  const dir = tempDir("goat-custom-bash-");
  const model = scriptedModel();
  model.enqueue(reply.toolCalls([{ name: "Bash", input: { command: "ls" } }]), reply.text("done"));
  const asked: string[] = [];
  const messages = await collect(
    query({
      prompt: "list the files",
      options: scriptedOptions(model, {
        cwd: dir,
        permissionMode: "default",
        tools: [tool],
        canUseTool: async (name, input) => {
          asked.push(`${name}: ${(input as { command: string }).command}`);
          return { behavior: "deny", message: "not now" };
        },
      }),
    }),
  );
  const results = JSON.stringify(model.requests.at(-1)?.messages);
  expect(messages.at(-1)?.type).toBe("result");
  return { asked, result: results };
}

describe("a Bash line allowed on the analysis alone goes only to a Bash that confines it", () => {
  it("the host's own Bash tool is asked about `ls` (it would run unconfined)", async () => {
    const { asked, result } = await asksFor(hostBash);
    expect(asked).toEqual(["Bash: ls"]);
    expect(result).not.toContain("ran elsewhere");
  });

  it("Goat's own Bash runs the same `ls` without a question", async () => {
    const { asked } = await asksFor("Bash");
    expect(asked).toEqual([]);
  });
});
