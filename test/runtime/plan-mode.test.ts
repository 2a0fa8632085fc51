/**
 * Plan mode through query(): only read-only tools run; ExitPlanMode asks canUseTool with the plan,
 * and approval switches the session to default (or to acceptEdits when the answer says so), while a
 * rejection keeps it in plan mode.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { CanUseTool } from "../../src/permissions/types.js";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { type ScriptedModel, scriptedModel } from "../../src/testing/scripted-model.js";
import { reply } from "../support/mock-provider.js";
import { collect, scriptedOptions, tempDir, toolResultsSent } from "./helpers.js";

// The model is scripted in memory (the requests are the loop's neutral ones): the subject is the
// permission flow, not the wire.
let model: ScriptedModel;
let cwd: string;
beforeEach(() => {
  model = scriptedModel();
  cwd = tempDir("goat-plan-");
});

const planned = (canUseTool?: CanUseTool, extra: QueryOptions = {}) =>
  scriptedOptions(model, {
    cwd,
    tools: ["Read", "Write", "ExitPlanMode"],
    permissionMode: "plan",
    ...(canUseTool ? { canUseTool } : {}),
    ...extra,
  });

describe("plan mode", () => {
  it("reads but does not write, then ExitPlanMode asks with the plan and approval leaves plan mode", async () => {
    fs.writeFileSync(path.join(cwd, "a.txt"), "hello\n");
    const file = path.join(cwd, "b.txt");
    const asked: Array<[string, any, any]> = [];
    model.enqueue(
      reply.toolCalls([
        { name: "Read", input: { file_path: path.join(cwd, "a.txt") }, id: "r1" },
        { name: "Write", input: { file_path: file, content: "x" }, id: "w1" },
      ]),
      reply.toolCalls([{ name: "ExitPlanMode", input: { plan: "1. write b.txt" }, id: "p1" }]),
      reply.toolCalls([{ name: "Write", input: { file_path: file, content: "x" }, id: "w2" }]),
      reply.text("done"),
    );
    const messages = await collect(
      query({
        prompt: "x",
        options: planned(async (tool, input, opts) => {
          asked.push([tool, input, opts.suggestions]);
          return { behavior: "allow", updatedInput: input };
        }),
      }),
    );
    const first = toolResultsSent(model.requests[1]);
    expect(first[0].isError).toBe(false);
    expect(first[1].isError).toBe(true);
    expect(first[1].content).toMatch(/plan mode/);
    expect(asked[0][0]).toBe("ExitPlanMode");
    expect(asked[0][1]).toEqual({ plan: "1. write b.txt" });
    expect(asked[0][2]).toEqual([{ type: "setMode", mode: "acceptEdits", destination: "session" }]);
    expect(toolResultsSent(model.requests[2]).at(-1)!.content).toMatch(/approved your plan/);
    // Now in default mode: the Write asks (and the callback allows it).
    expect(asked[1][0]).toBe("Write");
    expect(fs.readFileSync(file, "utf8")).toBe("x");
    const init = messages.find((m) => m.type === "system" && (m as any).subtype === "init") as any;
    expect(init.permissionMode).toBe("plan");
  });

  it("with acceptEdits in the answer, edits then run without asking", async () => {
    const file = path.join(cwd, "c.txt");
    const asked: string[] = [];
    model.enqueue(
      reply.toolCalls([{ name: "ExitPlanMode", input: { plan: "write c" }, id: "p1" }]),
      reply.toolCalls([{ name: "Write", input: { file_path: file, content: "y" }, id: "w1" }]),
      reply.text("done"),
    );
    await collect(
      query({
        prompt: "x",
        options: planned(async (tool, input, opts) => {
          asked.push(tool);
          return { behavior: "allow", updatedInput: input, updatedPermissions: opts.suggestions };
        }),
      }),
    );
    expect(asked).toEqual(["ExitPlanMode"]);
    expect(fs.readFileSync(file, "utf8")).toBe("y");
  });

  it("a rejected plan keeps plan mode; without a callback ExitPlanMode is refused; outside plan mode it says so", async () => {
    const file = path.join(cwd, "d.txt");
    model.enqueue(
      reply.toolCalls([{ name: "ExitPlanMode", input: { plan: "p" }, id: "p1" }]),
      reply.toolCalls([{ name: "Write", input: { file_path: file, content: "z" }, id: "w1" }]),
      reply.text("ok"),
    );
    await collect(
      query({
        prompt: "x",
        options: planned(async () => ({ behavior: "deny", message: "add tests first" })),
      }),
    );
    const rejected = toolResultsSent(model.requests[1]).at(-1)!;
    expect(rejected.isError).toBe(true);
    expect(rejected.content).toMatch(/rejected the plan.*add tests first/);
    expect(toolResultsSent(model.requests[2]).at(-1)!.content).toMatch(/plan mode/);
    expect(fs.existsSync(file)).toBe(false);

    model.requests.length = 0;
    model.enqueue(
      reply.toolCalls([{ name: "ExitPlanMode", input: { plan: "p" }, id: "p2" }]),
      reply.text("ok"),
    );
    await collect(query({ prompt: "x", options: planned() }));
    expect(toolResultsSent(model.requests[1])[0].content).toMatch(/canUseTool/);

    model.requests.length = 0;
    model.enqueue(
      reply.toolCalls([{ name: "ExitPlanMode", input: { plan: "p" }, id: "p3" }]),
      reply.text("ok"),
    );
    await collect(query({ prompt: "x", options: planned(undefined, { permissionMode: "default" }) }));
    expect(toolResultsSent(model.requests[1])[0].content).toMatch(/not in plan mode/);
  });
});
