/**
 * Goat's JSON Schema validator, which checks every built-in tool call, `jsonSchema()` tools, hook
 * output and MCP config files: what it accepts and refuses, the messages a model reads, defaults
 * filled in, unknown properties kept or dropped, combinators and local references, and that the
 * caller's value is never changed.
 */
import { describe, expect, it } from "vitest";
import {
  type JsonSchema,
  jsonSchemaValidator,
  validateJsonSchema,
} from "../../src/schema/json-schema-validator.js";

const problems = (schema: JsonSchema, value: unknown) => {
  const result = validateJsonSchema(schema, value);
  return result.ok ? [] : result.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
};

describe("types and values", () => {
  it("checks each type and names what it received", () => {
    expect(problems({ type: "string" }, 3)).toEqual(["(root): expected string, received number"]);
    expect(problems({ type: "integer" }, 1.5)).toEqual(["(root): expected integer, received number"]);
    expect(problems({ type: "number" }, Number.NaN)).toEqual(["(root): expected number, received NaN"]);
    expect(problems({ type: "object" }, [])).toEqual(["(root): expected object, received array"]);
    expect(problems({ type: "array" }, null)).toEqual(["(root): expected array, received null"]);
    expect(problems({ type: ["string", "null"] }, null)).toEqual([]);
    expect(problems({ type: ["string", "null"] }, true)).toEqual([
      "(root): expected string or null, received boolean",
    ]);
    expect(problems({ type: "string", nullable: true }, null)).toEqual([]);
  });

  it("checks enums, consts, lengths, patterns and bounds", () => {
    expect(problems({ enum: ["a", "b"] }, "c")).toEqual(['(root): expected one of "a" | "b", received "c"']);
    expect(problems({ const: 1 }, 2)).toEqual(["(root): expected 1, received 2"]);
    expect(problems({ enum: [{ a: [1] }] }, { a: [1] })).toEqual([]);
    expect(problems({ type: "string", minLength: 2 }, "é")).toEqual([
      "(root): too short: expected at least 2 characters",
    ]);
    // Code points, not UTF-16 units: one emoji is one character.
    expect(problems({ type: "string", maxLength: 1 }, "😀")).toEqual([]);
    expect(problems({ type: "string", maxLength: 1 }, "ab")).toEqual([
      "(root): too long: expected at most 1 character",
    ]);
    expect(problems({ type: "string", pattern: "^a+$" }, "ab")).toEqual([
      "(root): does not match the pattern ^a+$",
    ]);
    expect(problems({ type: "number", exclusiveMinimum: 0, maximum: 10 }, 0)).toEqual([
      "(root): too small: expected a number > 0",
    ]);
    expect(problems({ type: "number", minimum: 0, exclusiveMaximum: 10 }, 10)).toEqual([
      "(root): too big: expected a number < 10",
    ]);
    expect(problems({ type: "number", multipleOf: 0.1 }, 0.3)).toEqual([]);
    expect(problems({ type: "number", multipleOf: 2 }, 3)).toEqual(["(root): expected a multiple of 2"]);
  });

  it("accepts keywords it does not know, and a pattern JavaScript cannot compile", () => {
    expect(problems({ type: "string", format: "email", "x-custom": 1 }, "not an email")).toEqual([]);
    expect(problems({ type: "string", pattern: "(?<unclosed" }, "x")).toEqual([]);
  });
});

describe("objects and arrays", () => {
  const schema = {
    type: "object",
    properties: {
      file_path: { type: "string" },
      limit: { type: "integer", minimum: 1 },
      mode: { type: "string", enum: ["a", "b"], default: "a" },
    },
    required: ["file_path", "mode"],
  };

  it("reports a missing required property with the type it wants, and fills in defaults", () => {
    expect(problems(schema, {})).toEqual(["file_path: expected string, received undefined"]);
    expect(validateJsonSchema(schema, { file_path: "/a" })).toEqual({
      ok: true,
      value: { file_path: "/a", mode: "a" },
    });
  });

  it("gives every problem with its path, nested in arrays", () => {
    const list = { type: "array", items: schema, minItems: 1 };
    expect(problems(list, [])).toEqual(["(root): too few items: expected at least 1"]);
    expect(problems(list, [{ file_path: "/a" }, { file_path: 1, limit: 0 }])).toEqual([
      "1.file_path: expected string, received number",
      "1.limit: too small: expected a number >= 1",
    ]);
    expect(
      problems({ type: "array", prefixItems: [{ type: "string" }], items: { type: "number" } }, [
        "a",
        1,
        "b",
      ]),
    ).toEqual(["2: expected number, received string"]);
  });

  it("keeps unknown properties by default, drops them when asked, refuses them when the schema says so", () => {
    const input = { file_path: "/a", extra: 1, nested: { x: 1 } };
    expect(validateJsonSchema(schema, input)).toMatchObject({ ok: true, value: { extra: 1 } });
    const stripped = validateJsonSchema(schema, input, { removeAdditional: true });
    expect(stripped).toEqual({ ok: true, value: { file_path: "/a", mode: "a" } });
    expect(problems({ ...schema, additionalProperties: false }, input)).toEqual([
      '(root): unrecognized key "extra"',
      '(root): unrecognized key "nested"',
    ]);
    expect(problems({ type: "object", additionalProperties: { type: "string" } }, { a: "x", b: 2 })).toEqual([
      "b: expected string, received number",
    ]);
  });

  it("never changes the caller's value", () => {
    const input = { file_path: "/a", extra: true, list: [{ a: 1 }] };
    const copy = structuredClone(input);
    validateJsonSchema(schema, input, { removeAdditional: true });
    expect(input).toEqual(copy);
  });
});

describe("combinators and references", () => {
  it("anyOf takes the first match and reports the closest branch when none matches", () => {
    const decision = {
      anyOf: [
        { type: "object", properties: { behavior: { const: "allow" } }, required: ["behavior"] },
        {
          type: "object",
          properties: { behavior: { const: "deny" }, message: { type: "string" } },
          required: ["behavior"],
        },
      ],
    };
    expect(problems(decision, { behavior: "allow" })).toEqual([]);
    expect(problems(decision, { behavior: "deny", message: 5 })).toEqual([
      "message: expected string, received number",
    ]);
  });

  it("oneOf wants exactly one match; allOf all; not none", () => {
    const one = { oneOf: [{ type: "number" }, { type: "integer" }] };
    expect(problems(one, 1.5)).toEqual([]);
    expect(problems(one, 2)).toEqual(["(root): matches more than one of the allowed shapes"]);
    expect(problems({ allOf: [{ type: "number" }, { minimum: 3 }] }, 2)).toEqual([
      "(root): too small: expected a number >= 3",
    ]);
    expect(problems({ not: { type: "string" } }, "x")).toEqual([
      "(root): matches a shape that is not allowed",
    ]);
  });

  it("follows local $refs, recursive ones included, and accepts what it cannot follow", () => {
    const tree = {
      $defs: {
        node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } } },
      },
      $ref: "#/$defs/node",
    };
    expect(problems(tree, { kids: [{ kids: [] }] })).toEqual([]);
    expect(problems(tree, { kids: [{ kids: 3 }] })).toEqual(["kids.0.kids: expected array, received number"]);
    expect(problems({ $ref: "https://example.com/schema.json" }, 1)).toEqual([]);
    expect(problems({ $ref: "#/definitions/missing" }, 1)).toEqual([]);
  });

  it("handles boolean schemas", () => {
    expect(problems(true, { anything: 1 })).toEqual([]);
    expect(problems({ type: "object", properties: { no: false } }, { no: 1 })).toEqual([
      "no: no value is allowed here",
    ]);
  });
});

describe("as a Standard Schema", () => {
  it("answers validate() with value or issues, synchronously", () => {
    const schema = jsonSchemaValidator<{ n: number }>({
      type: "object",
      properties: { n: { type: "number" } },
    });
    const std = schema["~standard"];
    expect(std.vendor).toBe("goat");
    expect(std.validate({ n: 1 })).toEqual({ value: { n: 1 } });
    expect(std.validate({ n: "1" })).toEqual({
      issues: [{ message: "expected number, received string", path: ["n"] }],
    });
  });
});
