import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../src/sdk/options-check.js";
import { query } from "../../src/sdk/query.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { collect, FORMATS, type Format, mockOptions, resultOf, toolResultsSent } from "./helpers.js";

const schema = {
  type: "object",
  properties: { city: { type: "string" }, population: { type: "integer" } },
  required: ["city", "population"],
  additionalProperties: false,
};

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
});

function run(format: Format, extra = {}) {
  return collect(
    query({
      prompt: "What is the biggest city in France?",
      options: mockOptions(mock, format, { outputFormat: { type: "json_schema", schema }, ...extra }),
    }),
  );
}

/** The schema each wire format received for a tool. */
function offeredSchema(body: any, name: string): unknown {
  for (const t of body.tools ?? []) {
    if (t.name === name) return t.input_schema;
    if (t.function?.name === name) return t.function.parameters;
  }
  return undefined;
}

/** The texts of the user messages of a request body (either format). */
function userTexts(body: any): string[] {
  return (body.messages ?? [])
    .filter((m: any) => m.role === "user")
    .flatMap((m: any) =>
      typeof m.content === "string"
        ? [m.content]
        : m.content.filter((b: any) => b.type === "text").map((b: any) => b.text),
    );
}

describe.each(FORMATS)("structured output (%s)", (format) => {
  it("offers the StructuredOutput tool with the schema; a valid call ends the run with structured_output", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "StructuredOutput", input: { city: "Paris", population: 2102650 } }]),
    );
    const messages = await run(format);
    expect(offeredSchema(mock.requests[0].body, "StructuredOutput")).toEqual(schema);
    const result = resultOf(messages);
    expect(result.subtype).toBe("success");
    expect((result as any).structured_output).toEqual({ city: "Paris", population: 2102650 });
    // The run ended at once: no call after the valid output.
    expect(mock.requests).toHaveLength(1);
    const init = messages[0] as any;
    expect(init.tools).toContain("StructuredOutput");
  });

  it("an invalid call gets the validation errors back, and the corrected call is the output", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "StructuredOutput", input: { city: "Paris", population: "two million" } }]),
      reply.toolCalls([{ name: "StructuredOutput", input: { city: "Paris", population: 2000000 } }]),
    );
    const result = resultOf(await run(format));
    const [sent] = toolResultsSent(mock.requests[1].body);
    expect(sent.content).toContain("/population: expected integer, received string");
    expect(sent.isError).toBe(true);
    expect(result.subtype).toBe("success");
    expect((result as any).structured_output).toEqual({ city: "Paris", population: 2000000 });
  });

  it("five invalid calls end the run with error_max_structured_output_retries", async () => {
    for (let i = 0; i < 5; i++)
      mock.enqueue(reply.toolCalls([{ name: "StructuredOutput", input: { city: 1 } }]));
    const result = resultOf(await run(format));
    expect(mock.requests).toHaveLength(5);
    expect(result.subtype).toBe("error_max_structured_output_retries");
    expect(result.is_error).toBe(true);
    expect((result as any).structured_output).toBeUndefined();
    expect((result as any).errors[0]).toMatch(/^No valid structured output after 5 attempts/);
    const last = toolResultsSent(mock.requests[4].body).at(-1)!;
    expect(last.content).toContain("/city: expected string, received number");
    expect(last.content).toContain("/population: expected integer, received undefined");
  });

  it("a plain-text answer is told to call the tool instead of ending in success", async () => {
    mock.enqueue(
      reply.text("Paris, about two million people."),
      reply.toolCalls([{ name: "StructuredOutput", input: { city: "Paris", population: 2102650 } }]),
    );
    const result = resultOf(await run(format));
    expect(mock.requests).toHaveLength(2);
    expect(userTexts(mock.requests[1].body).at(-1)).toMatch(/calling the StructuredOutput tool/);
    expect(result.subtype).toBe("success");
    expect((result as any).structured_output).toEqual({ city: "Paris", population: 2102650 });
  });

  it("a model that never calls the tool ends with error_max_structured_output_retries, not success", async () => {
    for (let i = 0; i < 5; i++) mock.enqueue(reply.text("Paris."));
    const result = resultOf(await run(format));
    expect(mock.requests).toHaveLength(5);
    expect(result.subtype).toBe("error_max_structured_output_retries");
    expect((result as any).errors[0]).toMatch(/without calling StructuredOutput/);
  });
});

describe("structured output set-up", () => {
  it("each run of a multi-turn query needs its own output", async () => {
    mock.enqueue(
      reply.toolCalls([{ name: "StructuredOutput", input: { city: "Paris", population: 1 } }]),
      reply.toolCalls([{ name: "StructuredOutput", input: { city: "Lyon", population: 2 } }]),
    );
    async function* prompts() {
      yield { type: "user" as const, message: { role: "user" as const, content: "first" } };
      yield { type: "user" as const, message: { role: "user" as const, content: "second" } };
    }
    const messages = await collect(
      query({
        prompt: prompts(),
        options: mockOptions(mock, "anthropic", { outputFormat: { type: "json_schema", schema } }),
      }),
    );
    const results = messages.filter((m) => m.type === "result") as any[];
    expect(results.map((r) => r.structured_output)).toEqual([
      { city: "Paris", population: 1 },
      { city: "Lyon", population: 2 },
    ]);
  });

  it("a schema that is not of an object is refused; one that is not a usable JSON Schema ends with an error result", async () => {
    expect(() =>
      query({
        prompt: "x",
        options: mockOptions(mock, "anthropic", {
          outputFormat: { type: "json_schema", schema: { type: "array" } },
        }),
      }),
    ).toThrow(InvalidOptionError);
    const result = resultOf(
      await collect(
        query({
          prompt: "x",
          options: mockOptions(mock, "anthropic", {
            outputFormat: {
              type: "json_schema",
              schema: { type: "object", properties: { a: { type: "nope" } } },
            },
          }),
        }),
      ),
    );
    expect(result.subtype).toBe("error_during_execution");
    expect((result as any).errors[0]).toMatch(
      /outputFormat.schema is not a valid JSON Schema: \/properties\/a\/type: "nope"/,
    );
    expect(mock.requests).toHaveLength(0);
  });

  it("subagents are not offered the StructuredOutput tool", async () => {
    mock.enqueue(
      reply.toolCalls([
        { name: "Task", input: { description: "d", prompt: "p", subagent_type: "general-purpose" } },
      ]),
      reply.text("child done"),
      reply.toolCalls([{ name: "StructuredOutput", input: { city: "Paris", population: 3 } }]),
    );
    const result = resultOf(
      await collect(
        query({
          prompt: "x",
          options: mockOptions(mock, "anthropic", {
            tools: ["Task"],
            outputFormat: { type: "json_schema", schema },
          }),
        }),
      ),
    );
    expect(offeredSchema(mock.requests[0].body, "StructuredOutput")).toBeDefined();
    expect(offeredSchema(mock.requests[1].body, "StructuredOutput")).toBeUndefined();
    expect((result as any).structured_output).toEqual({ city: "Paris", population: 3 });
  });
});
