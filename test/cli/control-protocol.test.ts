/**
 * The stream-json control protocol end to end: the built `goat` as a child process, driven line by
 * line the way the Claude Agent SDK drives Claude Code, against the mock provider.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createModelCatalog, supportedModels } from "../../src/llm/index.js";
import { reply } from "../support/mock-provider.js";
import {
  control,
  type Host,
  isResult,
  responseTo,
  startHost as startHostIn,
  user,
  waitUntil,
} from "./control-host.js";
import { useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-ctl");
const sessions: Host[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.child.kill("SIGKILL");
});
const startHost = (extraArgs: string[] = []) => startHostIn(fx, sessions, extraArgs);

describe("host control requests", () => {
  it("initialize is answered with success and the models, before any system/init", async () => {
    fx.mock.enqueue(reply.text("hello"));
    const host = startHost();
    host.send(control("init-1", { subtype: "initialize", hooks: {}, systemPrompt: [""] }));
    const answer = await host.waitFor(responseTo("init-1"));
    expect(answer.response.subtype).toBe("success");
    expect(answer.response.response.models.map((m: any) => m.value)).toContain("anthropic/claude-sonnet-4-5");
    const sonnet = answer.response.response.models.find(
      (m: any) => m.value === "anthropic/claude-sonnet-4-5",
    );
    expect(sonnet.description).toMatch(
      /^anthropic, [1-9]\d{0,2}(,\d{3})+-token context, up to [1-9]\d{0,2}(,\d{3})+ output tokens$/,
    );
    // The list a library session's supportedModels() gives, effort levels and adaptive thinking included.
    expect(answer.response.response.models).toEqual(supportedModels(createModelCatalog()));
    expect(answer.response.response.models.some((m: any) => m.supportedEffortLevels?.length > 0)).toBe(true);
    expect(answer.response.response.commands.map((c: any) => c.name)).toEqual(["compact"]);
    host.send({ type: "keep_alive" });
    host.send(user("hi"));
    expect((await host.waitFor(isResult)).result).toBe("hello");
    const { code, stderr } = await host.end();
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(host.lines.findIndex(responseTo("init-1"))).toBeLessThan(
      host.lines.findIndex((m) => m.type === "system" && m.subtype === "init"),
    );
    // An empty systemPrompt from the SDK keeps Goat's prompt.
    expect(JSON.stringify(fx.mock.requests[0].body.system)).toContain("Goat");
  });

  it("an unknown subtype gets an error response naming it and the session goes on", async () => {
    fx.mock.enqueue(reply.text("still here"));
    const host = startHost();
    host.send(control("x-1", { subtype: "rewind_everything" }));
    const answer = await host.waitFor(responseTo("x-1"));
    expect(answer.response).toMatchObject({ subtype: "error", request_id: "x-1" });
    expect(answer.response.error).toContain("rewind_everything");
    host.send(user("are you alive?"));
    expect((await host.waitFor(isResult)).result).toBe("still here");
    expect((await host.end()).code).toBe(0);
  });

  it("interrupt during a slow stream ends that turn with an error result; the next user line is answered", async () => {
    fx.mock.enqueue(
      reply.text("x".repeat(400), { delayMs: 100, chunkSize: 4 }),
      reply.text("after the interrupt"),
    );
    const host = startHost();
    host.send(user("write a lot"));
    await waitUntil(() => fx.mock.requests.length === 1);
    host.send(control("int-1", { subtype: "interrupt" }));
    expect((await host.waitFor(responseTo("int-1"))).response.subtype).toBe("success");
    const first = await host.waitFor(isResult);
    expect(first.is_error).toBe(true);
    host.send(user("are you still there?"));
    const second = await host.waitFor(isResult, 2);
    expect(second).toMatchObject({ is_error: false, result: "after the interrupt" });
    expect(JSON.stringify(fx.mock.requests[1].body.messages)).toContain("are you still there?");
    expect((await host.end()).code).toBe(0);
  });

  it("set_model changes the model of the next request and set_permission_mode checks its mode", async () => {
    fx.mock.enqueue(reply.text("one"), reply.text("two"));
    const host = startHost(["--model", "anthropic/claude-sonnet-4-5"]);
    host.send(user("first"));
    await host.waitFor(isResult);
    host.send(control("m-1", { subtype: "set_model", model: "anthropic/claude-haiku-4-5" }));
    expect((await host.waitFor(responseTo("m-1"))).response).toMatchObject({
      subtype: "success",
      response: { model: "anthropic/claude-haiku-4-5" },
    });
    host.send(control("p-1", { subtype: "set_permission_mode", mode: "sideways" }));
    expect((await host.waitFor(responseTo("p-1"))).response.error).toMatch(/must be one of default/);
    host.send(user("second"));
    await host.waitFor(isResult, 2);
    expect(fx.mock.requests[0].body.model).toBe("claude-sonnet-4-5");
    expect(fx.mock.requests[1].body.model).toBe("claude-haiku-4-5");
    expect((await host.end()).code).toBe(0);
  });
});

describe("rewind_files, get_context_usage and stop_task", () => {
  it("rewinds a file the turn wrote, by the host's user message uuid; reports context usage; refuses an unknown task", async () => {
    fx.env.CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING = "true";
    const target = join(fx.work.path, "made.txt");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Write", input: { file_path: target, content: "hello" } }]),
      reply.text("written"),
    );
    const host = startHost(["--permission-mode", "acceptEdits"]);
    const uuid = "5a1f3c0e-0000-4000-8000-000000000001";
    host.send({ ...user("write a file"), uuid });
    const result = await host.waitFor(isResult);
    expect(result.user_message_uuid).toBe(uuid);
    expect(existsSync(target)).toBe(true);

    host.send(control("ctx-1", { subtype: "get_context_usage" }));
    const usage = (await host.waitFor(responseTo("ctx-1"))).response.response;
    expect(usage.categories.map((c: any) => c.id)).toContain("messages");
    expect(usage.maxTokens).toBe(200_000);

    host.send(control("rw-1", { subtype: "rewind_files", user_message_id: uuid, dry_run: false }));
    expect((await host.waitFor(responseTo("rw-1"))).response.response).toMatchObject({
      canRewind: true,
      filesChanged: [target],
    });
    expect(existsSync(target)).toBe(false);

    // An id that names nothing running is a no-op, as in Claude Code.
    host.send(control("st-1", { subtype: "stop_task", task_id: "no-such-task" }));
    expect((await host.waitFor(responseTo("st-1"))).response).toMatchObject({ subtype: "success" });
    expect((await host.end()).code).toBe(0);
  });
});

describe("--permission-prompt-tool stdio", () => {
  it("asks the host with can_use_tool: an allowed Bash call runs, a denied one is an is_error result", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_a", input: { command: "touch allowed.txt" } }]),
      reply.toolCalls([{ name: "Bash", id: "toolu_b", input: { command: "touch denied.txt" } }]),
      reply.text("done"),
    );
    const host = startHost(["--permission-prompt-tool", "stdio"]);
    host.send(user("make two files"));
    const ask1 = await host.waitFor(
      (m) => m.type === "control_request" && m.request.subtype === "can_use_tool",
    );
    expect(ask1.request).toMatchObject({
      tool_name: "Bash",
      input: { command: "touch allowed.txt" },
      tool_use_id: "toolu_a",
    });
    expect(Array.isArray(ask1.request.permission_suggestions)).toBe(true);
    host.send({
      type: "control_response",
      response: {
        subtype: "success",
        request_id: ask1.request_id,
        response: { behavior: "allow", updatedInput: ask1.request.input },
      },
    });
    const ask2 = await host.waitFor(
      (m) => m.type === "control_request" && m.request.subtype === "can_use_tool",
      2,
    );
    expect(ask2.request.tool_use_id).toBe("toolu_b");
    host.send({
      type: "control_response",
      response: {
        subtype: "success",
        request_id: ask2.request_id,
        response: { behavior: "deny", message: "not that one" },
      },
    });
    const result = await host.waitFor(isResult);
    expect(result.result).toBe("done");
    expect(existsSync(join(fx.work.path, "allowed.txt"))).toBe(true);
    expect(existsSync(join(fx.work.path, "denied.txt"))).toBe(false);
    const denied = fx.mock.requests[2].body.messages
      .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
      .find((b: any) => b.type === "tool_result" && b.tool_use_id === "toolu_b");
    expect(denied.is_error).toBe(true);
    expect(JSON.stringify(denied.content)).toContain("not that one");
    expect((await host.end()).code).toBe(0);
  });

  it("an interrupt while the host has not answered denies the call and cancels the question", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_c", input: { command: "touch never.txt" } }]),
    );
    const host = startHost(["--permission-prompt-tool", "stdio"]);
    host.send(user("make a file"));
    const ask = await host.waitFor(
      (m) => m.type === "control_request" && m.request.subtype === "can_use_tool",
    );
    host.send(control("int-2", { subtype: "interrupt" }));
    const cancel = await host.waitFor((m) => m.type === "control_cancel_request");
    expect(cancel.request_id).toBe(ask.request_id);
    expect((await host.waitFor(isResult)).is_error).toBe(true);
    expect(existsSync(join(fx.work.path, "never.txt"))).toBe(false);
    expect((await host.end()).code).toBe(1);
  });
});

describe("hooks registered by initialize", () => {
  it("a PreToolUse hook_callback answered with deny blocks the Bash call", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_h", input: { command: "echo hooked" } }]),
      reply.text("blocked, fine"),
    );
    const host = startHost();
    host.send(
      control("init-2", {
        subtype: "initialize",
        hooks: { PreToolUse: [{ matcher: "Bash", hookCallbackIds: ["hook_0"] }] },
      }),
    );
    expect((await host.waitFor(responseTo("init-2"))).response.subtype).toBe("success");
    host.send(user("echo something"));
    const call = await host.waitFor(
      (m) => m.type === "control_request" && m.request.subtype === "hook_callback",
    );
    expect(call.request).toMatchObject({ callback_id: "hook_0", tool_use_id: "toolu_h" });
    expect(call.request.input).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Bash" });
    host.send({
      type: "control_response",
      response: {
        subtype: "success",
        request_id: call.request_id,
        response: {
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: "the host says no",
          },
        },
      },
    });
    expect((await host.waitFor(isResult)).result).toBe("blocked, fine");
    const blocked = fx.mock.requests[1].body.messages
      .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
      .find((b: any) => b.type === "tool_result");
    expect(blocked.is_error).toBe(true);
    expect(JSON.stringify(blocked.content)).toContain("the host says no");
    expect((await host.end()).code).toBe(0);
  });
});
