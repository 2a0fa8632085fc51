/**
 * The input schemas `defineTool` accepts, turned into the two things a tool needs: a Standard Schema
 * that validates the model's input, and the JSON Schema the model sees. Accepted: any Standard Schema
 * (zod 3.25+ and 4, valibot, arktype, effect…), a raw shape of them (`{ city: z.string() }`, as the
 * SDK's `tool()` takes), and a plain JSON Schema wrapped in `jsonSchema()`. Goat imports no schema
 * library: validation goes through `~standard.validate`, and the JSON Schema comes from the schema's
 * own library (see `schema/to-json-schema.ts`) or from `inputJSONSchema`. Anything else is refused
 * with a message naming the tool.
 */

import { type JsonSchemaValidationOptions, jsonSchemaValidator } from "../schema/json-schema-validator.js";
import { isStandardSchema, type StandardSchemaV1 } from "../schema/standard-schema.js";
import { jsonSchemaOf } from "../schema/to-json-schema.js";
import { InvalidToolError } from "./errors.js";

const JSON_SCHEMA = Symbol.for("goat.jsonSchema");

/** A plain JSON Schema given to `defineTool`; make it with `jsonSchema()`. `T` is the input's type. */
export interface JsonSchemaInput<T = Record<string, unknown>> {
  readonly [JSON_SCHEMA]: true;
  readonly schema: Record<string, unknown>;
  /** How input is checked against it. */
  readonly options: JsonSchemaValidationOptions;
  /** Type only: the input type the schema describes. */
  readonly __input?: T;
}

/**
 * Wraps a plain JSON Schema (an object schema) for `defineTool`. The model sees it exactly as given;
 * input is checked against it by Goat's validator (types, required and extra properties, enums,
 * bounds, patterns, combinators and local `$ref`s; `default`s of missing properties are filled in;
 * keywords it does not know, such as `format`, are left to the tool). With `removeAdditional`,
 * properties the schema does not name are dropped before the tool sees the input.
 *
 * @example
 * defineTool({ name: "weather", description: "…",
 *   inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
 *   execute: ({ city }) => ({ content: `Sunny in ${city}` }) });
 */
export function jsonSchema<T = Record<string, unknown>>(
  schema: Record<string, unknown>,
  options: JsonSchemaValidationOptions = {},
): JsonSchemaInput<T> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new InvalidToolError(
      'jsonSchema() takes a JSON Schema object, e.g. { type: "object", properties: {…} }',
    );
  }
  if (schema.type !== undefined && schema.type !== "object") {
    throw new InvalidToolError(
      `jsonSchema(): a tool's input must be an object schema (type "object"), got type ${JSON.stringify(schema.type)}`,
    );
  }
  return { [JSON_SCHEMA]: true, schema, options };
}

/** A raw shape: field names mapped to Standard Schemas (`{ city: z.string() }`). */
export type StandardShape = { readonly [field: string]: StandardSchemaV1 };

/**
 * The object type a raw shape describes: fields whose schema accepts `undefined` are optional. (The
 * `extends infer T` step flattens the intersection into one object type, for readable hovers, without
 * naming a helper type the public API would then show but not export.)
 */
export type InferShape<Shape extends StandardShape> = {
  [K in keyof Shape as undefined extends StandardSchemaV1.InferOutput<Shape[K]>
    ? never
    : K]: StandardSchemaV1.InferOutput<Shape[K]>;
} & {
  [K in keyof Shape as undefined extends StandardSchemaV1.InferOutput<Shape[K]>
    ? K
    : never]?: StandardSchemaV1.InferOutput<Shape[K]>;
} extends infer T
  ? { [K in keyof T]: T[K] }
  : never;

/** What a tool keeps of its schema. */
export interface NormalizedSchema {
  validator: StandardSchemaV1;
  json: Record<string, unknown>;
}

/**
 * Turns whatever `defineTool` was given as `inputSchema` (and `inputJSONSchema`, when given) into a
 * validator and a JSON Schema.
 */
export function normalizeInputSchema(
  toolName: string,
  schema: unknown,
  inputJSONSchema?: Record<string, unknown>,
): NormalizedSchema {
  if (isJsonSchemaInput(schema)) {
    const { $schema: _dialect, ...json }: Record<string, unknown> = { type: "object", ...schema.schema };
    return { validator: jsonSchemaValidator(schema.schema, schema.options), json };
  }
  if (isStandardSchema(schema)) {
    return { validator: schema, json: modelSchema(toolName, schema, inputJSONSchema) };
  }
  if (isRawShape(schema)) {
    const fields = Object.entries(schema);
    if (fields.every(([, field]) => isStandardSchema(field))) {
      const shape = schema as StandardShape;
      return { validator: shapeValidator(shape), json: inputJSONSchema ?? shapeJsonSchema(toolName, shape) };
    }
  }
  throw new InvalidToolError(
    `Tool "${toolName}": inputSchema must be a schema (zod, valibot, arktype or another Standard Schema: z.object({ … })), a raw shape of them ({ city: z.string() }), or a JSON Schema wrapped in jsonSchema({ type: "object", … }); got ${describe(schema)}.`,
    toolName,
  );
}

/** The JSON Schema the model sees for a tool's Standard Schema: given, or from its library. */
function modelSchema(
  toolName: string,
  schema: StandardSchemaV1,
  given: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const json = describeSchema(toolName, schema, given, "");
  if (json.type !== undefined && json.type !== "object") {
    throw new InvalidToolError(
      `Tool "${toolName}": a tool's input must be an object schema, got type ${JSON.stringify(json.type)}`,
      toolName,
    );
  }
  return json;
}

/** A schema's JSON Schema (given, or from its library); a schema that has none is an error. */
function describeSchema(
  toolName: string,
  schema: StandardSchemaV1,
  given: Record<string, unknown> | undefined,
  where: string,
): Record<string, unknown> {
  let json: Record<string, unknown> | undefined;
  try {
    json = given ?? jsonSchemaOf(schema);
  } catch (error) {
    throw new InvalidToolError(`Tool "${toolName}"${where}: ${(error as Error).message}`, toolName);
  }
  if (json === undefined) {
    throw new InvalidToolError(
      `Tool "${toolName}"${where}: a ${schema["~standard"].vendor} schema cannot describe itself as JSON Schema; pass the JSON Schema the model should see as inputJSONSchema (for valibot: toJsonSchema(schema) from @valibot/to-json-schema).`,
      toolName,
    );
  }
  return json;
}

/**
 * A Standard Schema for a raw shape, checking each field with its own schema as `z.object` would:
 * the input must be an object, fields that end up `undefined` are left out, unknown keys are dropped.
 */
function shapeValidator(shape: StandardShape): StandardSchemaV1<unknown, Record<string, unknown>> {
  const keys = Object.keys(shape);
  const assemble = (
    input: Record<string, unknown>,
    results: StandardSchemaV1.Result<unknown>[],
  ): StandardSchemaV1.Result<Record<string, unknown>> => {
    const value: Record<string, unknown> = {};
    const issues: StandardSchemaV1.Issue[] = [];
    results.forEach((result, i) => {
      const key = keys[i];
      if (result.issues) {
        for (const issue of result.issues) issues.push({ ...issue, path: [key, ...(issue.path ?? [])] });
      } else if (result.value !== undefined || key in input) value[key] = result.value;
    });
    return issues.length > 0 ? { issues } : { value };
  };
  return {
    "~standard": {
      version: 1,
      vendor: "goat",
      validate: (input) => {
        if (typeof input !== "object" || input === null || Array.isArray(input)) {
          const received = input === null ? "null" : Array.isArray(input) ? "array" : typeof input;
          return { issues: [{ message: `expected object, received ${received}`, path: [] }] };
        }
        const record = input as Record<string, unknown>;
        const results = keys.map((key) => shape[key]["~standard"].validate(record[key]));
        if (results.some((r) => r instanceof Promise))
          return Promise.all(results).then((all) => assemble(record, all));
        return assemble(record, results as StandardSchemaV1.Result<unknown>[]);
      },
    },
  };
}

/** The JSON Schema of a raw shape, from each field's own; a field that accepts nothing is required. */
function shapeJsonSchema(toolName: string, shape: StandardShape): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(shape)) {
    properties[key] = describeSchema(`${toolName}`, field, undefined, ` (field "${key}")`);
    const empty = field["~standard"].validate(undefined);
    if (empty instanceof Promise || empty.issues) required.push(key);
  }
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
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
