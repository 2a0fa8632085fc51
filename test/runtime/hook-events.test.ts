/**
 * `includeHookEvents` through query(): each hook that runs (a callback, a command hook from the
 * `settings` layer) is shown to the host as a `hook_started` / `hook_response` pair, with Claude Code's
 * fields, in the order things happened; without the option the stream has none.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, useMockProvider } from "./helpers.js";

const mock = useMockProvider();
let cwd: string;
beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-hook-events-")));
  return () => fs.rmSync(cwd, { recursive: true, force: true });
});

/** A Glob call answered, with a PreToolUse callback and a failing PostToolUse command hook. */
async function run(extra: QueryOptions): Promise<SDKMessage[]> {
  mock.enqueue(
    reply.toolCalls([{ name: "Glob", id: "toolu_g", input: { pattern: "*" } }]),
    reply.text("done"),
  );
  return collect(
    query({
      prompt: "list",
      options: mockOptions(mock, "anthropic", {
        cwd,
        tools: ["Glob"],
        hooks: {
          PreToolUse: [{ matcher: "Glob", hooks: [async () => ({ systemMessage: "checked" })] }],
        },
        settings: {
          hooks: {
            PostToolUse: [
              { matcher: "*", hooks: [{ type: "command", command: "echo looked; echo oops >&2; exit 1" }] },
            ],
          },
        },
        ...extra,
      }),
    }),
  );
}

const hookMessages = (messages: SDKMessage[]) =>
  messages.filter(
    (m) => m.type === "system" && (m.subtype === "hook_started" || m.subtype === "hook_response"),
  );

describe("includeHookEvents", () => {
  it("shows each hook's start and response, paired by hook_id, between the call and its result", async () => {
    const messages = await run({ includeHookEvents: true });
    const hooks = hookMessages(messages) as any[];
    expect(hooks.map((m) => [m.subtype, m.hook_name])).toEqual([
      ["hook_started", "PreToolUse:Glob"],
      ["hook_response", "PreToolUse:Glob"],
      ["hook_started", "PostToolUse:*"],
      ["hook_response", "PostToolUse:*"],
    ]);
    const [preStart, pre, postStart, post] = hooks;
    expect(pre).toMatchObject({
      hook_id: preStart.hook_id,
      hook_event: "PreToolUse",
      outcome: "success",
      output: JSON.stringify({ systemMessage: "checked" }),
    });
    expect(post).toMatchObject({
      hook_id: postStart.hook_id,
      hook_event: "PostToolUse",
      outcome: "error",
      output: "looked\n",
      stdout: "looked\n",
      stderr: "oops\n",
      exit_code: 1,
    });
    expect(preStart.hook_id).not.toBe(postStart.hook_id);
    // In the order things happened: the hooks run between the tool call and its result.
    const at = (find: (m: any) => boolean) => messages.findIndex(find);
    const call = at(
      (m) => m.type === "assistant" && m.message.content.some((b: any) => b.type === "tool_use"),
    );
    const result = at((m) => m.type === "user");
    expect(call).toBeLessThan(at((m) => m === preStart));
    expect(at((m) => m === post)).toBeLessThan(result);
  });

  it("without it (the default), no hook message is sent", async () => {
    expect(hookMessages(await run({}))).toEqual([]);
  });
});
