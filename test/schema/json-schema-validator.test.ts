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

  it("accepts keywords and formats it does not know, and a pattern JavaScript cannot compile", () => {
    expect(problems({ type: "string", format: "x-mine", "x-custom": 1 }, "anything")).toEqual([]);
    expect(problems({ type: "string", pattern: "(?<unclosed" }, "x")).toEqual([]);
  });
});

describe("format", () => {
  const bad = (format: string, text: string) => problems({ type: "string", format }, text).length > 0;

  it("refuses strings not in the format, with a message naming it", () => {
    expect(problems({ type: "string", format: "email" }, "not an email")).toEqual([
      "(root): expected a string in the format email",
    ]);
    for (const [format, text] of [
      ["date", "2026-02-29"],
      ["date", "2026-13-01"],
      ["time", "25:00:00Z"],
      ["time", "12:00:00"], // RFC 3339 wants the offset
      ["date-time", "yesterday"],
      ["date-time", "2026-11-28 12:00"],
      ["duration", "P"],
      ["hostname", "-bad.example"],
      ["ipv4", "256.1.1.1"],
      ["ipv4", "01.1.1.1"],
      ["ipv6", "1::2::3"],
      ["uri", "no scheme"],
      ["uri", "/relative/path"],
      ["uuid", "1234"],
      ["regex", "(unclosed"],
    ])
      expect(bad(format, text), `${format} ${text}`).toBe(true);
  });

  it("accepts strings in the format, and checks only strings", () => {
    for (const [format, text] of [
      ["date", "2024-02-29"],
      ["time", "23:59:60.5+01:00"],
      ["date-time", "2026-11-28T01:55:00Z"],
      ["date-time", "2026-11-28t01:55:00.123-05:30"],
      ["duration", "P1DT2H30M"],
      ["email", "a.b+c@example.co.uk"],
      ["hostname", "api.example.com"],
      ["ipv4", "192.168.0.1"],
      ["ipv6", "::1"],
      ["ipv6", "2001:db8::8a2e:370:7334"],
      ["uri", "https://example.com/a?b=c"],
      ["uri", "urn:isbn:0451450523"],
      ["uuid", "123e4567-e89b-12d3-a456-426614174000"],
      ["regex", "^a+$"],
    ])
      expect(bad(format, text), `${format} ${text}`).toBe(false);
    expect(problems({ format: "email" }, 42)).toEqual([]);
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

describe("the keywords structured output's schemas use", () => {
  it("checks property counts, patternProperties, propertyNames and dependentRequired", () => {
    expect(problems({ type: "object", minProperties: 1 }, {})).toEqual([
      "(root): too few properties: expected at least 1",
    ]);
    const byPattern = { patternProperties: { "^n_": { type: "number" } }, additionalProperties: false };
    expect(problems(byPattern, { n_a: 1 })).toEqual([]);
    expect(problems(byPattern, { n_a: "1", b: 2 })).toEqual([
      "n_a: expected number, received string",
      '(root): unrecognized key "b"',
    ]);
    expect(problems({ propertyNames: { maxLength: 2 } }, { abc: 1 })).toEqual([
      "abc: too long: expected at most 2 characters",
    ]);
    expect(problems({ dependentRequired: { card: ["cvv"] } }, { card: "1" })).toEqual([
      'cvv: required with "card"',
    ]);
  });

  it("checks uniqueItems, contains, draft-07 tuples and if/then/else", () => {
    expect(problems({ uniqueItems: true }, [{ a: 1 }, { a: 1 }])).toEqual(["(root): expected unique items"]);
    expect(problems({ contains: { const: 3 } }, [1, 2])).toEqual([
      "(root): no item matches the shape required of at least one",
    ]);
    expect(problems({ contains: { const: 3 } }, [1, 3])).toEqual([]);
    expect(problems({ items: [{ type: "string" }, { type: "number" }] }, ["a", "b"])).toEqual([
      "1: expected number, received string",
    ]);
    const conditional = {
      if: { properties: { kind: { const: "circle" } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's keyword; the object is never awaited
      then: { required: ["radius"] },
      else: { required: ["side"] },
    };
    expect(problems(conditional, { kind: "circle" })).toEqual(["radius: required"]);
    expect(problems(conditional, { kind: "square" })).toEqual(["side: required"]);
    expect(problems(conditional, { kind: "square", side: 1 })).toEqual([]);
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
