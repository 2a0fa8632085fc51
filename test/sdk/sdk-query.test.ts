/**
 * The official Claude Agent SDK (TypeScript) running `goat` as its Claude Code executable, against the
 * mock provider: the tool loop, `canUseTool`, hook callbacks, interrupt, `setModel` and
 * `setPermissionMode` on streaming input, resume, and an abort that stops the running tool at once.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useCliFixture } from "../cli/helpers.js";
import { reply } from "../support/mock-provider.js";
import { type ClaudeSdk, loadClaudeSdk } from "./claude-sdk.js";
import { collect, inits, results, sdkOptions, toolResults, userStream } from "./helpers.js";

const fx = useCliFixture("goat-sdk-q");
let sdk: ClaudeSdk;
beforeAll(async () => {
  sdk = await loadClaudeSdk();
}, 300_000);

/** The tool_result blocks the model was sent in request `i`. */
const sentResults = (i: number) =>
  fx.mock.requests[i].body.messages
    .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: any) => b.type === "tool_result");

async function waitUntil(done: () => boolean, timeoutMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("goat under the Claude Agent SDK", () => {
  it("runs the tool loop and reports its real model and tools in system/init", async () => {
    writeFileSync(join(fx.work.path, "notes.txt"), "the answer is 42\n");
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Read", id: "toolu_r", input: { file_path: join(fx.work.path, "notes.txt") } },
      ]),
      reply.text("It says 42."),
    );
    const run = await collect(sdk.query({ prompt: "what do my notes say?", options: sdkOptions(fx) }));
    expect(run.error).toBeUndefined();
    const init = inits(run)[0];
    expect(init.model).toBe("anthropic/claude-sonnet-4-5");
    expect(init.tools).toEqual(expect.arrayContaining(["Bash", "Read", "Edit", "Write", "Glob", "Grep"]));
    expect(init.claude_code_version).toMatch(/^2\.\d+\.\d+$/);
    expect(JSON.stringify(toolResults(run)[0].content)).toContain("the answer is 42");
    expect(results(run)[0]).toMatchObject({ subtype: "success", result: "It says 42.", num_turns: 2 });
  });

  it("asks canUseTool: updatedInput is what runs, a denial's message reaches the model", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_1", input: { command: "touch asked.txt" } }]),
      reply.toolCalls([{ name: "Bash", id: "toolu_2", input: { command: "touch denied.txt" } }]),
      reply.text("done"),
    );
    const asked: Array<{ tool: string; input: any; id: string }> = [];
    const run = await collect(
      sdk.query({
        prompt: "make files",
        options: sdkOptions(fx, {
          canUseTool: async (tool: string, input: any, opts: { toolUseID: string }) => {
            asked.push({ tool, input, id: opts.toolUseID });
            if (input.command === "touch asked.txt") {
              return { behavior: "allow", updatedInput: { command: "touch rewritten.txt" } };
            }
            return { behavior: "deny", message: "no files called denied" };
          },
        }),
      }),
    );
    expect(run.error).toBeUndefined();
    expect(asked.map((a) => [a.tool, a.input.command, a.id])).toEqual([
      ["Bash", "touch asked.txt", "toolu_1"],
      ["Bash", "touch denied.txt", "toolu_2"],
    ]);
    expect(existsSync(join(fx.work.path, "rewritten.txt"))).toBe(true);
    expect(existsSync(join(fx.work.path, "asked.txt"))).toBe(false);
    expect(existsSync(join(fx.work.path, "denied.txt"))).toBe(false);
    const denied = sentResults(2).find((b: any) => b.tool_use_id === "toolu_2");
    expect(denied.is_error).toBe(true);
    expect(JSON.stringify(denied.content)).toContain("no files called denied");
  });

  it("runs hook callbacks: PreToolUse can deny with a reason, PostToolUse sees the tool's response", async () => {
    writeFileSync(join(fx.work.path, "a.txt"), "alpha");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_b", input: { command: "touch hooked.txt" } }]),
      reply.toolCalls([{ name: "Read", id: "toolu_r", input: { file_path: join(fx.work.path, "a.txt") } }]),
      reply.text("ok"),
    );
    const seen: any[] = [];
    const run = await collect(
      sdk.query({
        prompt: "go",
        options: sdkOptions(fx, {
          allowedTools: ["Bash", "Read"],
          hooks: {
            PreToolUse: [
              {
                matcher: "Bash",
                hooks: [
                  async (input: any) => {
                    seen.push(input);
                    return {
                      hookSpecificOutput: {
                        hookEventName: "PreToolUse",
                        permissionDecision: "deny",
                        permissionDecisionReason: "hooks say no to Bash",
                      },
                    };
                  },
                ],
              },
            ],
            PostToolUse: [
              {
                matcher: "Read",
                hooks: [
                  async (input: any) => {
                    seen.push(input);
                    return {};
                  },
                ],
              },
            ],
          },
        }),
      }),
    );
    expect(run.error).toBeUndefined();
    expect(existsSync(join(fx.work.path, "hooked.txt"))).toBe(false);
    expect(seen[0]).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "touch hooked.txt" },
      tool_use_id: "toolu_b",
      cwd: fx.work.path,
    });
    expect(typeof seen[0].session_id).toBe("string");
    expect(seen[1]).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_name: "Read",
      tool_use_id: "toolu_r",
    });
    // Claude Code's Read response shape, which hooks written for Claude read.
    expect(seen[1].tool_response.file).toMatchObject({ content: "alpha", numLines: 1, startLine: 1 });
    const blocked = sentResults(1).find((b: any) => b.tool_use_id === "toolu_b");
    expect(JSON.stringify(blocked.content)).toContain("hooks say no to Bash");
  });

  it("streaming input: interrupt ends the turn, setModel and setPermissionMode apply to the next one", async () => {
    fx.mock.enqueue(reply.text("z".repeat(400), { delayMs: 100, chunkSize: 4 }), reply.text("second turn"));
    const input = userStream();
    const q = sdk.query({
      prompt: input.stream,
      options: sdkOptions(fx, { model: "anthropic/claude-sonnet-4-5" }),
    });
    const collected = collect(q);
    input.push("write a lot");
    await waitUntil(() => fx.mock.requests.length === 1);
    await q.interrupt();
    await q.setModel("anthropic/claude-haiku-4-5");
    await q.setPermissionMode("acceptEdits");
    input.push("now something short");
    await waitUntil(() => fx.mock.requests.length === 2);
    input.end();
    const run = await collected;
    expect(run.error).toBeUndefined();
    const [first, second] = results(run);
    expect(first.is_error).toBe(true);
    expect(second).toMatchObject({ subtype: "success", result: "second turn" });
    expect(fx.mock.requests[1].body.model).toBe("claude-haiku-4-5");
    expect(inits(run)[1]).toMatchObject({
      model: "anthropic/claude-haiku-4-5",
      permissionMode: "acceptEdits",
    });
  });

  it("resume: a second query continues the first session's conversation", async () => {
    fx.mock.enqueue(reply.text("noted: blue"), reply.text("you said blue"));
    const first = await collect(
      sdk.query({ prompt: "my favourite colour is blue", options: sdkOptions(fx) }),
    );
    const sessionId = results(first)[0].session_id;
    const second = await collect(
      sdk.query({ prompt: "what is my favourite colour?", options: sdkOptions(fx, { resume: sessionId }) }),
    );
    expect(second.error).toBeUndefined();
    expect(results(second)[0]).toMatchObject({ result: "you said blue", session_id: sessionId });
    const sent = JSON.stringify(fx.mock.requests[1].body.messages);
    expect(sent).toContain("my favourite colour is blue");
    expect(sent).toContain("noted: blue");
  });

  it("abort while a tool runs: goat kills it and answers the call before the SDK's SIGTERM", async () => {
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Bash", id: "toolu_s", input: { command: "echo $$ > pid.txt; sleep 30; touch late.txt" } },
      ]),
    );
    const abortController = new AbortController();
    const q = sdk.query({
      prompt: "run the slow thing",
      options: sdkOptions(fx, {
        abortController,
        canUseTool: async (_t: string, input: any) => ({ behavior: "allow", updatedInput: input }),
      }),
    });
    const collected = collect(q);
    const pidFile = join(fx.work.path, "pid.txt");
    await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    const pid = Number(readFileSync(pidFile, "utf8"));
    const abortedAt = Date.now();
    abortController.abort();
    await collected;
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await waitUntil(() => !alive(), 5_000);
    // The SDK sends SIGTERM 2 s after closing stdin; Goat has stopped the tool well before.
    expect(Date.now() - abortedAt).toBeLessThan(2000);
    expect(existsSync(join(fx.work.path, "late.txt"))).toBe(false);
  });
});
