/**
 * Tool input is validated once (a zod `transform` runs once and its output reaches the tool), and again
 * only when a hook replaced it. `defineTool` takes a raw zod shape, a zod 3 schema and a plain JSON
 * Schema through `jsonSchema()`, and names the problem for anything else. Hooks given without their
 * matcher group work, and a malformed group is refused with its place in the option.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import { query } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { defineTool, validateToolInput } from "../../src/tools/define-tool.js";
import { jsonSchema } from "../../src/tools/tool-schema.js";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, useMockProvider } from "./helpers.js";

const mock = useMockProvider();

function toolResults(messages: SDKMessage[]) {
  return messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? m.message.content.filter((b) => b.type === "tool_result")
      : [],
  );
}

/** A tool whose schema turns an ISO string into a Date, counting how often the transform ran. */
function dateTool(seen: { transforms: number; got?: unknown }) {
  return defineTool({
    name: "when",
    description: "takes a date",
    sideEffect: "none",
    inputSchema: z.object({
      at: z.string().transform((s) => {
        seen.transforms++;
        return new Date(s);
      }),
    }),
    execute: ({ at }) => {
      seen.got = at;
      return { content: at instanceof Date ? at.toISOString() : `not a date: ${String(at)}` };
    },
  });
}

describe("validating tool input once", () => {
  it("runs a transform once and hands its output to the tool", async () => {
    const seen = { transforms: 0 } as { transforms: number; got?: unknown };
    mock.enqueue(
      reply.toolCalls([{ name: "when", input: { at: "2024-05-01T00:00:00.000Z" } }]),
      reply.text("ok"),
    );
    const messages = await collect(
      query({ prompt: "x", options: mockOptions(mock, "anthropic", { tools: [dateTool(seen)] }) }),
    );
    const [result] = toolResults(messages);
    expect(result.is_error).toBeUndefined();
    expect(result.content).toBe("2024-05-01T00:00:00.000Z");
    expect(seen.transforms).toBe(1);
    expect(seen.got).toBeInstanceOf(Date);
  });

  it("validates input a hook replaced, and refuses it when invalid", async () => {
    const seen = { transforms: 0 } as { transforms: number; got?: unknown };
    let replaceWith: Record<string, unknown> = { at: "2030-01-01T00:00:00.000Z" };
    const options = mockOptions(mock, "anthropic", {
      tools: [dateTool(seen)],
      hooks: {
        PreToolUse: [
          async () => ({
            hookSpecificOutput: { hookEventName: "PreToolUse" as const, updatedInput: replaceWith },
          }),
        ],
      },
    });
    mock.enqueue(
      reply.toolCalls([{ name: "when", input: { at: "2024-05-01T00:00:00.000Z" } }]),
      reply.text("ok"),
    );
    const first = toolResults(await collect(query({ prompt: "x", options })));
    expect(first[0].content).toBe("2030-01-01T00:00:00.000Z");

    replaceWith = { at: 42 };
    mock.enqueue(
      reply.toolCalls([{ name: "when", input: { at: "2024-05-01T00:00:00.000Z" } }]),
      reply.text("ok"),
    );
    const second = toolResults(await collect(query({ prompt: "x", options })));
    expect(second[0].is_error).toBe(true);
    expect(String(second[0].content)).toMatch(
      /input a hook or permission callback supplied is invalid[\s\S]*at:/,
    );
  });
});

describe("defineTool schemas", () => {
  const run = () => ({ content: "ran" });

  it("takes a raw zod shape, as tool() does", async () => {
    const t = defineTool({
      name: "weather",
      description: "d",
      inputSchema: { city: z.string() },
      execute: run,
    });
    expect(t.jsonSchema).toMatchObject({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    });
    expect(await validateToolInput(t, { city: 3 })).toMatchObject({ ok: false });
    expect(await validateToolInput(t, { city: "Oslo" })).toEqual({ ok: true, value: { city: "Oslo" } });
  });

  it("takes a zod 3 schema: its JSON Schema for the model, its own validation", async () => {
    const t = defineTool({
      name: "legacy",
      description: "d",
      inputSchema: z3.object({
        city: z3.string().describe("The city"),
        days: z3.number().int().min(1).optional(),
        unit: z3.enum(["C", "F"]).default("C"),
      }),
      execute: run,
    });
    expect(t.jsonSchema).toEqual({
      type: "object",
      properties: {
        city: { type: "string", description: "The city" },
        days: { type: "integer", minimum: 1 },
        unit: { type: "string", enum: ["C", "F"], default: "C" },
      },
      required: ["city"],
    });
    expect(await validateToolInput(t, { city: "Oslo" })).toEqual({
      ok: true,
      value: { city: "Oslo", unit: "C" },
    });
    const bad = await validateToolInput(t, { city: 1, days: 0 });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toMatch(/- city: .*\n- days: /);
  });

  it("takes a plain JSON Schema through jsonSchema(), shown to the model as given", async () => {
    const schema = {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer" } },
      required: ["city"],
    };
    const t = defineTool({
      name: "js",
      description: "d",
      inputSchema: jsonSchema<{ city: string }>(schema),
      execute: run,
    });
    expect(t.jsonSchema).toEqual(schema);
    expect((await validateToolInput(t, { city: "Oslo", days: 2 })).ok).toBe(true);
    expect((await validateToolInput(t, { days: 2 })).ok).toBe(false);
  });

  it.each([
    [
      { type: "object", properties: { city: { type: "string" } } },
      /plain JSON Schema \(wrap it: inputSchema: jsonSchema/,
    ],
    [undefined, /got undefined/],
    ["city", /got a string/],
    [{ city: "string" }, /an object with keys city/],
  ])("names the problem with %j instead of failing inside", (schema, why) => {
    expect(() =>
      defineTool({ name: "bad", description: "d", inputSchema: schema as never, execute: run }),
    ).toThrow(new RegExp(`Tool "bad": .*${why.source}`));
  });
});

describe("hooks without their matcher group", () => {
  it("accepts a bare callback (in a list or alone) as a group that matches every tool", async () => {
    const calls: string[] = [];
    const echo = defineTool({
      name: "echo",
      description: "e",
      inputSchema: {},
      sideEffect: "none",
      execute: run2,
    });
    mock.enqueue(reply.toolCalls([{ name: "echo", input: {} }]), reply.text("ok"));
    await collect(
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          tools: [echo],
          hooks: {
            PreToolUse: [
              async (input) => {
                calls.push(`pre:${(input as { tool_name: string }).tool_name}`);
                return {};
              },
            ],
            PostToolUse: async () => {
              calls.push("post");
              return {};
            },
          },
        }),
      }),
    );
    expect(calls).toEqual(["pre:echo", "post"]);
  });

  it("refuses a malformed group, naming where it is", () => {
    expect(() =>
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", { hooks: { PreToolUse: [{ matcher: "Bash" } as never] } }),
      }),
    ).toThrow(/hooks\.PreToolUse\[0\] has no hooks array: write \{ matcher: "Bash", hooks: \[/);
    expect(() =>
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", { hooks: { Stop: ["echo hi" as never] } }),
      }),
    ).toThrow(/hooks\.Stop\[0\] must be a hook callback or \{ matcher\?, hooks: \[callback\] \}, got string/);
  });
});

function run2() {
  return { content: "ran" };
}
