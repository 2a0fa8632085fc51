/**
 * Query methods a host calls to steer tools: `seedReadState` (Write accepts a file the host says was
 * read, only while it is unchanged) and `setMcpPermissionModeOverride` (one MCP server's tools ask
 * again in bypassPermissions), through real tools and a real in-process MCP server.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createSdkMcpServer, tool } from "../../src/mcp/sdk-server.js";
import { createAsyncQueue } from "../../src/sdk/async-queue.js";
import { query, type SDKUserMessageInput } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { reply } from "../support/mock-provider.js";
import { mockOptions, useMockProvider } from "./helpers.js";

const mock = useMockProvider();
let cwd: string;
beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-hostctl-")));
  return () => fs.rmSync(cwd, { recursive: true, force: true });
});

async function untilResult(q: AsyncIterator<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for (;;) {
    const { value, done } = await q.next();
    if (done) return out;
    out.push(value);
    if (value.type === "result") return out;
  }
}

const toolResultTexts = (messages: SDKMessage[]) =>
  messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? m.message.content.flatMap((b: any) => (b.type === "tool_result" ? [JSON.stringify(b.content)] : []))
      : [],
  );

describe("seedReadState", () => {
  it("lets Write replace a file the host saw, unless it changed since", async () => {
    const file = path.join(cwd, "notes.txt");
    fs.writeFileSync(file, "old\n");
    const seen = Math.floor(fs.statSync(file).mtimeMs);
    const input = createAsyncQueue<SDKUserMessageInput>();
    const q = query({ prompt: input, options: mockOptions(mock, "anthropic", { cwd, tools: ["Write"] }) });
    const write = (content: string) =>
      reply.toolCalls([{ name: "Write", input: { file_path: file, content } }]);
    mock.enqueue(write("first\n"), reply.text("a"), write("second\n"), reply.text("b"));

    // A wrong mtime is no read: the file stays unseeded.
    expect(await q.seedReadState(file, seen - 5000)).toMatchObject({ seeded: false });
    expect(await q.seedReadState(path.join(cwd, "absent.txt"), seen)).toMatchObject({ seeded: false });
    expect(await q.seedReadState("notes.txt", seen)).toEqual({ seeded: true });
    input.push({ type: "user", message: { role: "user", content: "write it" } });
    expect(toolResultTexts(await untilResult(q))[0]).toContain("has been updated");
    expect(fs.readFileSync(file, "utf8")).toBe("first\n");

    // Changed on disk since the host's read: seeding with the old mtime is refused, Write still asks for a Read.
    fs.writeFileSync(file, "edited elsewhere\n");
    fs.utimesSync(file, new Date(), new Date(Date.now() + 10_000));
    expect(await q.seedReadState(file, seen)).toMatchObject({
      seeded: false,
      reason: expect.stringContaining("changed"),
    });
    input.push({ type: "user", message: { role: "user", content: "again" } });
    expect(toolResultTexts(await untilResult(q))[0]).toContain("modified since read");
    expect(fs.readFileSync(file, "utf8")).toBe("edited elsewhere\n");
    input.close();
    q.close();
  });
});

describe("setMcpPermissionModeOverride", () => {
  it('makes one server\'s tools ask in bypassPermissions ("default"), and null lifts it', async () => {
    const ran: string[] = [];
    const ping = (name: string) =>
      tool(name, "Records a call", { n: z.number() }, async ({ n }) => {
        ran.push(`${name} ${n}`);
        return { content: [{ type: "text", text: "pong" }] };
      });
    const asked: string[] = [];
    const input = createAsyncQueue<SDKUserMessageInput>();
    const q = query({
      prompt: input,
      options: mockOptions(mock, "anthropic", {
        cwd,
        permissionMode: "bypassPermissions",
        mcpServers: {
          strict: createSdkMcpServer({ name: "strict", tools: [ping("ping")] }),
          loose: createSdkMcpServer({ name: "loose", tools: [ping("ping")] }),
        },
        canUseTool: async (name) => {
          asked.push(name);
          return { behavior: "deny", message: "not now" };
        },
      }),
    });
    expect(await q.setMcpPermissionModeOverride("strict", "default")).toEqual({});
    expect((await q.setMcpPermissionModeOverride("typo", "default")).warning).toContain('"typo"');
    mock.enqueue(
      reply.toolCalls([
        { name: "mcp__strict__ping", id: "s1", input: { n: 1 } },
        { name: "mcp__loose__ping", id: "l1", input: { n: 1 } },
      ]),
      reply.text("a"),
      reply.toolCalls([{ name: "mcp__strict__ping", id: "s2", input: { n: 2 } }]),
      reply.text("b"),
    );
    input.push({ type: "user", message: { role: "user", content: "one" } });
    await untilResult(q);
    expect(asked).toEqual(["mcp__strict__ping"]);
    expect(ran).toEqual(["ping 1"]);
    await q.setMcpPermissionModeOverride("strict", null);
    input.push({ type: "user", message: { role: "user", content: "two" } });
    await untilResult(q);
    expect(asked).toEqual(["mcp__strict__ping"]);
    expect(ran).toEqual(["ping 1", "ping 2"]);
    await expect(q.setMcpPermissionModeOverride("strict", "auto" as never)).rejects.toThrow(/no auto mode/);
    input.close();
    q.close();
  });
});

describe("backgroundTasks", () => {
  it("moves a running command to the background: the call answers at once, the output stays readable, a notification follows", async () => {
    const marker = path.join(cwd, "finished");
    const go = path.join(cwd, "go");
    const input = createAsyncQueue<SDKUserMessageInput>();
    const q = query({
      prompt: input,
      options: mockOptions(mock, "anthropic", { cwd, tools: ["Bash", "BashOutput"] }),
    });
    mock.enqueue(
      reply.toolCalls([
        {
          name: "Bash",
          id: "slow",
          input: {
            command: `echo early; while [ ! -f ${go} ]; do sleep 0.05; done; echo late; touch ${marker}`,
          },
        },
      ]),
      reply.text("moved on"),
    );
    input.push({ type: "user", message: { role: "user", content: "run it" } });
    const seen: SDKMessage[] = [];
    for (;;) {
      const { value } = await q.next();
      seen.push(value as SDKMessage);
      if (value?.type === "tool_progress" && (value as any).output?.includes("early")) break;
    }
    expect(await q.backgroundTasks("not-running")).toBe(false);
    expect(await q.backgroundTasks("slow")).toBe(true);
    const rest = await untilResult(q);
    const moved = rest.find((m) => m.type === "user") as any;
    expect(moved.tool_use_result).toMatchObject({ backgroundedByUser: true, interrupted: false });
    const shellId = moved.tool_use_result.backgroundTaskId as string;
    expect(JSON.stringify(moved.message.content)).toContain(shellId);
    // The turn ended while the command still waits for its go.
    expect(fs.existsSync(marker)).toBe(false);
    fs.writeFileSync(go, "");
    const note = await q.next();
    expect(note.value).toMatchObject({
      subtype: "task_notification",
      task_id: shellId,
      tool_use_id: "slow",
      status: "completed",
    });
    expect(fs.existsSync(marker)).toBe(true);
    mock.enqueue(
      reply.toolCalls([{ name: "BashOutput", id: "read", input: { bash_id: shellId } }]),
      reply.text("read"),
    );
    input.push({ type: "user", message: { role: "user", content: "read it" } });
    const read = toolResultTexts(await untilResult(q)).join();
    expect(read).toContain("early");
    expect(read).toContain("late");
    input.close();
    q.close();
  });
});
