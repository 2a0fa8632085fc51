/**
 * Goat once had two JSON Schema validators: its own for tool input (which took `format` as satisfied)
 * and ajv for structured output (which checked it). Now both paths go through the one validator, so a
 * `format` means the same to a `jsonSchema()` tool and to `outputFormat`.
 */
import { describe, expect, it } from "vitest";
import { createStructuredOutput } from "../../src/runtime/structured-output.js";
import { jsonSchemaValidator } from "../../src/schema/json-schema-validator.js";

const schema = {
  type: "object",
  properties: { when: { type: "string", format: "date-time" }, contact: { type: "string", format: "email" } },
  required: ["when"],
};

/** The tool path: a tool's input checked through its Standard Schema. */
function toolAccepts(value: unknown): boolean {
  const result = jsonSchemaValidator(schema)["~standard"].validate(value);
  if (result instanceof Promise) throw new Error("the validator answers synchronously");
  return result.issues === undefined;
}

/** The structured-output path: the StructuredOutput tool's answer to a call. */
async function structuredOutputAccepts(value: Record<string, unknown>): Promise<boolean> {
  const output = await createStructuredOutput({ type: "json_schema", schema });
  const answer = await output.tool.execute(value, {} as never);
  return !(answer as { isError?: boolean }).isError;
}

describe("format on the tool path and the structured-output path", () => {
  const values: Array<[Record<string, unknown>, boolean]> = [
    [{ when: "2026-11-28T01:55:00Z" }, true],
    [{ when: "2026-11-28T01:55:00Z", contact: "ops@example.com" }, true],
    [{ when: "tomorrow" }, false],
    [{ when: "2026-11-28T01:55:00Z", contact: "not an address" }, false],
    [{ when: "2026-02-30T00:00:00Z" }, false],
  ];

  it.each(values)("%j: both paths agree (valid: %s)", async (value, valid) => {
    expect(toolAccepts(value)).toBe(valid);
    expect(await structuredOutputAccepts(value)).toBe(valid);
  });
});
