/**
 * Tools written with each schema library Goat supports, through the Standard Schema interface: zod 4
 * (its JSON Schema from zod's own converter, and from `toJSONSchema` for a zod 4 schema that carries
 * none), a real zod 3.25 install (Goat's converter), arktype (the Standard JSON Schema extension) and
 * valibot (no converter: `inputJSONSchema` given beside it, and a clear error without it). Each must
 * show the model the right JSON Schema and validate, default and transform input with its own rules;
 * one of each runs end to end through query() against the mock provider.
 */
import { type } from "arktype";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import * as z3 from "zod3";
import { defineTool, query, type SDKMessage, type StandardSchemaV1, tool } from "../../src/index.js";
import { validateToolInput } from "../../src/tools/index.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

const run = () => ({ content: "ran" });

async function check(t: Parameters<typeof validateToolInput>[0], input: unknown) {
  return validateToolInput(t, input);
}

describe("zod 4", () => {
  it("describes itself through ~standard.jsonSchema and validates with its own rules", async () => {
    const t = defineTool({
      name: "z4",
      description: "d",
      inputSchema: z.object({
        city: z.string().describe("The city"),
        days: z.number().int().min(1).optional(),
        unit: z.enum(["C", "F"]).default("C"),
        at: z.string().transform((s) => s.length),
      }),
      execute: run,
    });
    expect(t.jsonSchema).toEqual({
      type: "object",
      properties: {
        city: { type: "string", description: "The city" },
        days: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
        unit: { type: "string", enum: ["C", "F"], default: "C" },
        at: { type: "string" },
      },
      required: ["city", "at"],
    });
    expect(await check(t, { city: "Oslo", at: "abc" })).toEqual({
      ok: true,
      value: { city: "Oslo", unit: "C", at: 3 },
    });
    const bad = await check(t, { city: 1, days: 0, at: "x" });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toMatch(/- city: .*expected string[\s\S]*- days: /);
  });

  it("uses zod's toJSONSchema for a zod 4 schema without the extension (zod 4.0, 4.1, zod/v4 of 3.25)", () => {
    const modern = z.object({ city: z.string().describe("The city") });
    const standard = modern["~standard"];
    // The same schema as zod 4.0 made it: `~standard` without `jsonSchema`.
    const legacy = Object.create(modern, {
      "~standard": { value: { version: 1, vendor: "zod", validate: standard.validate } },
    });
    const t = defineTool({ name: "z40", description: "d", inputSchema: legacy, execute: run });
    expect(t.jsonSchema).toEqual({
      type: "object",
      properties: { city: { type: "string", description: "The city" } },
      required: ["city"],
    });
  });

  it("takes a raw shape, with optional and defaulted fields left out of required", async () => {
    const t = defineTool({
      name: "shape",
      description: "d",
      inputSchema: { city: z.string(), days: z.number().optional(), unit: z.string().default("C") },
      execute: ({ city, days, unit }) => ({ content: `${city} ${days ?? "-"} ${unit}` }),
    });
    expect(t.jsonSchema).toMatchObject({ required: ["city"] });
    expect(await check(t, { city: "Oslo", extra: 1 })).toEqual({
      ok: true,
      value: { city: "Oslo", unit: "C" },
    });
  });
});

describe("zod 3 (a real zod 3.25 install)", () => {
  it("is described by Goat's converter and validated by zod 3", async () => {
    const t = defineTool({
      name: "z3",
      description: "d",
      inputSchema: z3.z.object({ city: z3.z.string().describe("The city"), days: z3.z.number().default(2) }),
      execute: run,
    });
    expect(t.jsonSchema).toEqual({
      type: "object",
      properties: { city: { type: "string", description: "The city" }, days: { type: "number", default: 2 } },
      required: ["city"],
    });
    expect(await check(t, { city: "Oslo" })).toEqual({ ok: true, value: { city: "Oslo", days: 2 } });
    const bad = await check(t, { city: 3 });
    expect(!bad.ok && bad.message).toMatch(/- city: Expected string, received number/);
  });

  it("takes a raw shape of zod 3 fields", async () => {
    const t = defineTool({
      name: "z3shape",
      description: "d",
      inputSchema: { city: z3.z.string(), days: z3.z.number().optional() },
      execute: run,
    });
    expect(t.jsonSchema).toEqual({
      type: "object",
      properties: { city: { type: "string" }, days: { type: "number" } },
      required: ["city"],
    });
    expect((await check(t, {})).ok).toBe(false);
  });
});

describe("arktype", () => {
  it("describes itself through the Standard JSON Schema extension", async () => {
    const t = defineTool({
      name: "ark",
      description: "d",
      inputSchema: type({ city: "string", "days?": "number.integer >= 1" }),
      execute: run,
    });
    expect(t.jsonSchema).toMatchObject({
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } },
      required: ["city"],
    });
    expect(t.jsonSchema.$schema).toBeUndefined();
    expect(await check(t, { city: "Oslo", days: 2 })).toEqual({ ok: true, value: { city: "Oslo", days: 2 } });
    const bad = await check(t, { city: "Oslo", days: 0 });
    expect(!bad.ok && bad.message).toMatch(/- days: /);
  });
});

describe("valibot", () => {
  const schema = v.object({ city: v.string(), days: v.optional(v.pipe(v.number(), v.minValue(1)), 2) });
  const json = {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "number", minimum: 1, default: 2 } },
    required: ["city"],
  };

  it("needs its JSON Schema given as inputJSONSchema, and says so", () => {
    expect(() => defineTool({ name: "vb", description: "d", inputSchema: schema, execute: run })).toThrow(
      /Tool "vb": a valibot schema cannot describe itself as JSON Schema; pass .* as inputJSONSchema/,
    );
  });

  it("shows the model the given JSON Schema and validates with valibot", async () => {
    const t = defineTool({
      name: "vb",
      description: "d",
      inputSchema: schema,
      inputJSONSchema: json,
      execute: run,
    });
    expect(t.jsonSchema).toEqual(json);
    expect(await check(t, { city: "Oslo" })).toEqual({ ok: true, value: { city: "Oslo", days: 2 } });
    const bad = await check(t, { city: "Oslo", days: 0 });
    expect(!bad.ok && bad.message).toMatch(/- days: Invalid value: Expected >=1 but received 0/);
  });
});

describe("any Standard Schema", () => {
  it("validates asynchronously when the schema answers with a promise", async () => {
    const asyncSchema: StandardSchemaV1<unknown, { n: number }> = {
      "~standard": {
        version: 1,
        vendor: "custom",
        validate: async (value) =>
          typeof (value as { n?: unknown }).n === "number"
            ? { value: value as { n: number } }
            : { issues: [{ message: "n must be a number", path: [{ key: "n" }] }] },
      },
    };
    const t = defineTool({
      name: "async_tool",
      description: "d",
      inputSchema: asyncSchema,
      inputJSONSchema: { type: "object", properties: { n: { type: "number" } } },
      execute: run,
    });
    expect(await check(t, { n: 1 })).toEqual({ ok: true, value: { n: 1 } });
    const bad = await check(t, { n: "1" });
    expect(!bad.ok && bad.message).toMatch(/- n: n must be a number/);
  });

  it("refuses a non-object input schema, naming the tool", () => {
    expect(() =>
      defineTool({ name: "str", description: "d", inputSchema: z.string(), execute: run }),
    ).toThrow(/Tool "str": a tool's input must be an object schema, got type "string"/);
  });
});

describe("end to end through query()", () => {
  let mock: MockProvider;
  beforeAll(async () => {
    mock = await startMockProvider();
  });
  afterAll(() => mock.close());

  it("runs a valibot tool, an arktype tool and a zod 3 tool() the model calls, and sends each schema", async () => {
    const seen: unknown[] = [];
    const weather = defineTool({
      name: "weather",
      description: "Weather",
      inputSchema: v.object({ city: v.string() }),
      inputJSONSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      sideEffect: "none",
      execute: ({ city }) => {
        seen.push(city);
        return { content: `Sunny in ${city}` };
      },
    });
    const add = defineTool({
      name: "add",
      description: "Adds",
      inputSchema: type({ a: "number", b: "number" }),
      sideEffect: "none",
      execute: ({ a, b }) => ({ content: String(a + b) }),
    });
    const { createSdkMcpServer } = await import("../../src/index.js");
    const legacy = tool("shout", "Shouts", { text: z3.z.string() }, async ({ text }) => ({
      content: [{ type: "text", text: text.toUpperCase() }],
    }));
    mock.enqueue(
      reply.toolCalls([
        { name: "weather", input: { city: "Oslo" } },
        { name: "add", input: { a: 2, b: "3" } },
        { name: "mcp__old__shout", input: { text: "hi" } },
      ]),
      reply.text("done"),
    );
    const messages: SDKMessage[] = [];
    for await (const m of query({
      prompt: "go",
      options: {
        model: "anthropic/claude-sonnet-4-5",
        provider: { type: "anthropic", baseURL: mock.anthropicBaseURL, apiKey: "k" },
        persistSession: false,
        permissionMode: "bypassPermissions",
        tools: [weather, add],
        mcpServers: { old: createSdkMcpServer({ name: "old", tools: [legacy] }) },
      },
    }))
      messages.push(m);
    const sent = mock.requests[0].body as { tools: Array<{ name: string; input_schema: unknown }> };
    const schemas = Object.fromEntries(sent.tools.map((t) => [t.name, t.input_schema]));
    expect(schemas.weather).toEqual({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    });
    expect(schemas.add).toMatchObject({ type: "object", required: ["a", "b"] });
    expect(schemas.mcp__old__shout).toEqual({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
    const results = messages.flatMap((m) =>
      m.type === "user" && Array.isArray(m.message.content)
        ? m.message.content.filter((b) => b.type === "tool_result")
        : [],
    ) as Array<{ content: unknown; is_error?: boolean }>;
    expect(results[0]).toMatchObject({ content: "Sunny in Oslo" });
    expect(results[1].is_error).toBe(true);
    expect(String(results[1].content)).toMatch(/add was called with invalid input:\n- b: /);
    expect(JSON.stringify(results[2].content)).toContain("HI");
    expect(seen).toEqual(["Oslo"]);
  });
});
