/**
 * The input schemas `defineTool` accepts, turned into the two things a tool needs: something with
 * `safeParse` to validate the model's input, and the JSON Schema the model sees. Accepted: a zod 4
 * schema, a raw zod shape (`{ city: z.string() }`, as the SDK's `tool()` takes), a zod 3 schema, and a
 * plain JSON Schema wrapped in `jsonSchema()`. Anything else is refused with a message naming the tool.
 */
import * as z from "zod";
import { isZod3Schema, zod3ToJsonSchema } from "./zod3-json-schema.js";

const JSON_SCHEMA = Symbol.for("goat.jsonSchema");

/** A plain JSON Schema given to `defineTool`; make it with `jsonSchema()`. `T` is the input's type. */
export interface JsonSchemaInput<T = Record<string, unknown>> {
  readonly [JSON_SCHEMA]: true;
  readonly schema: Record<string, unknown>;
  /** Type only: the input type the schema describes. */
  readonly __input?: T;
}

/**
 * Wraps a plain JSON Schema (an object schema) for `defineTool`. The model sees it exactly as given;
 * input is validated against it (through zod's JSON Schema reader; constructs it cannot read are
 * left to the tool to check).
 *
 * @example
 * defineTool({ name: "weather", description: "…",
 *   inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
 *   execute: ({ city }) => ({ content: `Sunny in ${city}` }) });
 */
export function jsonSchema<T = Record<string, unknown>>(schema: Record<string, unknown>): JsonSchemaInput<T> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new TypeError('jsonSchema() takes a JSON Schema object, e.g. { type: "object", properties: {…} }');
  }
  if (schema.type !== undefined && schema.type !== "object") {
    throw new TypeError(
      `jsonSchema(): a tool's input must be an object schema (type "object"), got type ${JSON.stringify(schema.type)}`,
    );
  }
  return { [JSON_SCHEMA]: true, schema };
}

/** What a tool keeps of its schema. */
export interface NormalizedSchema {
  validator: z.ZodType;
  json: Record<string, unknown>;
}

/** Turns whatever `defineTool` was given as `inputSchema` into a validator and a JSON Schema. */
export function normalizeInputSchema(toolName: string, schema: unknown): NormalizedSchema {
  if (isZod4(schema)) return { validator: schema, json: zodToJsonSchema(schema) };
  if (isJsonSchemaInput(schema)) return fromJsonSchema(schema.schema);
  if (isZod3Schema(schema)) {
    // zod 3's safeParse answers in the same shape (success, data, error.issues with path and message).
    return {
      validator: schema as unknown as z.ZodType,
      json: { type: "object", ...zod3ToJsonSchema(schema) },
    };
  }
  if (isRawShape(schema)) {
    const values = Object.values(schema);
    if (values.every(isZod4)) {
      const object = z.object(schema as z.ZodRawShape);
      return { validator: object, json: zodToJsonSchema(object) };
    }
    if (values.length > 0 && values.every(isZod3Schema)) {
      throw new TypeError(
        `Tool "${toolName}": inputSchema is a raw shape of zod 3 fields; wrap it in z.object({ … }) from the zod you imported them from.`,
      );
    }
  }
  throw new TypeError(
    `Tool "${toolName}": inputSchema must be a zod schema (z.object({ … })), a raw zod shape ({ city: z.string() }), or a JSON Schema wrapped in jsonSchema({ type: "object", … }); got ${describe(schema)}.`,
  );
}

/** Derives the JSON Schema the model sees from a zod 4 schema. */
export function zodToJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

function fromJsonSchema(schema: Record<string, unknown>): NormalizedSchema {
  const json = { type: "object", ...schema };
  delete (json as { $schema?: unknown }).$schema;
  let validator: z.ZodType;
  try {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    // A schema zod cannot read still reaches the model as given; the tool checks its own input.
    validator = z.looseObject({});
  }
  return { validator, json };
}

function isZod4(value: unknown): value is z.ZodType {
  return (
    typeof value === "object" &&
    value !== null &&
    "_zod" in value &&
    typeof (value as z.ZodType).safeParse === "function"
  );
}

function isJsonSchemaInput(value: unknown): value is JsonSchemaInput {
  return (
    typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[JSON_SCHEMA] === true
  );
}

function isRawShape(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value !== "object") return `a ${typeof value}`;
  if (typeof (value as { type?: unknown }).type === "string" || "properties" in value)
    return "what looks like a plain JSON Schema (wrap it: inputSchema: jsonSchema({ … }))";
  return `an object with keys ${Object.keys(value).slice(0, 5).join(", ")}`;
}
