/**
 * The JSON Schema of a zod 3 schema, for tools written against zod 3 (`zod@3`, or `zod/v3`). Zod 4's
 * `toJSONSchema` cannot read them, and a converter library would be a dependency for a compatibility
 * path, so this covers what tool inputs use: objects, strings, numbers, booleans, enums, literals,
 * arrays, records, unions, optional / nullable / default wrappers, effects and descriptions. Anything
 * else becomes `{}` (any value): the model gets less guidance, and zod 3 still validates the input.
 */

/** The parts of a zod 3 schema this reads (`_def`, and its object `shape`). */
interface Zod3Node {
  _def: Record<string, any>;
}

/** True for a zod 3 schema: it has `_def` and `safeParse`, and none of zod 4's `_zod` internals. */
export function isZod3Schema(value: unknown): value is Zod3Node & { safeParse(input: unknown): unknown } {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return !("_zod" in v) && typeof v._def === "object" && typeof v.safeParse === "function";
}

/** Converts a zod 3 schema to JSON Schema (the input side: defaults make a field optional). */
export function zod3ToJsonSchema(schema: Zod3Node): Record<string, unknown> {
  const out = convert(schema);
  const description = schema._def.description;
  if (typeof description === "string" && out.description === undefined) out.description = description;
  return out;
}

function convert(node: Zod3Node): Record<string, any> {
  const def = node._def;
  const withDescription = (json: Record<string, any>) =>
    typeof def.description === "string" ? { ...json, description: def.description } : json;
  switch (def.typeName) {
    case "ZodString":
      return withDescription({ type: "string", ...stringChecks(def.checks) });
    case "ZodNumber": {
      const isInt = (def.checks ?? []).some((c: { kind: string }) => c.kind === "int");
      return withDescription({ type: isInt ? "integer" : "number", ...numberChecks(def.checks) });
    }
    case "ZodBigInt":
      return withDescription({ type: "integer" });
    case "ZodBoolean":
      return withDescription({ type: "boolean" });
    case "ZodDate":
      return withDescription({ type: "string", format: "date-time" });
    case "ZodNull":
      return withDescription({ type: "null" });
    case "ZodLiteral":
      return withDescription({ const: def.value });
    case "ZodEnum":
      return withDescription({ type: "string", enum: [...def.values] });
    case "ZodNativeEnum": {
      // A numeric TypeScript enum maps names to numbers and back; keep the values only.
      const values = def.values as Record<string, string | number>;
      const keys = Object.keys(values).filter((k) => typeof values[values[k]] !== "number");
      return withDescription({ enum: keys.map((k) => values[k]) });
    }
    case "ZodArray":
      return withDescription({ type: "array", items: zod3ToJsonSchema(def.type) });
    case "ZodTuple":
      return withDescription({ type: "array", prefixItems: def.items.map(zod3ToJsonSchema) });
    case "ZodRecord":
      return withDescription({ type: "object", additionalProperties: zod3ToJsonSchema(def.valueType) });
    case "ZodObject":
      return withDescription(objectSchema(def));
    case "ZodUnion":
    case "ZodDiscriminatedUnion": {
      const options = Array.isArray(def.options) ? def.options : [...def.options.values()];
      return withDescription({ anyOf: options.map(zod3ToJsonSchema) });
    }
    case "ZodIntersection":
      return withDescription({ allOf: [zod3ToJsonSchema(def.left), zod3ToJsonSchema(def.right)] });
    case "ZodOptional":
      return withDescription(zod3ToJsonSchema(def.innerType));
    case "ZodNullable":
      return withDescription({ anyOf: [zod3ToJsonSchema(def.innerType), { type: "null" }] });
    case "ZodDefault":
      return withDescription({ ...zod3ToJsonSchema(def.innerType), default: def.defaultValue() });
    case "ZodEffects":
      return withDescription(zod3ToJsonSchema(def.schema));
    case "ZodBranded":
    case "ZodReadonly":
    case "ZodCatch":
      return withDescription(zod3ToJsonSchema(def.type ?? def.innerType));
    case "ZodPipeline":
      return withDescription(zod3ToJsonSchema(def.in));
    case "ZodLazy":
      return withDescription({}); // recursive schemas: described as any value
    default:
      return withDescription({});
  }
}

function objectSchema(def: Record<string, any>): Record<string, unknown> {
  const shape: Record<string, Zod3Node> = typeof def.shape === "function" ? def.shape() : def.shape;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [key, value] of Object.entries(shape)) {
    properties[key] = zod3ToJsonSchema(value);
    if (!acceptsUndefined(value)) required.push(key);
  }
  const json: Record<string, unknown> = { type: "object", properties };
  if (required.length > 0) json.required = required;
  // zod 3 objects strip unknown keys unless told otherwise; only `.strict()` refuses them.
  if (def.unknownKeys === "strict") json.additionalProperties = false;
  return json;
}

/** Whether a field may be left out: optional, or with a default. */
function acceptsUndefined(node: Zod3Node): boolean {
  const name = node._def.typeName;
  if (name === "ZodOptional" || name === "ZodDefault") return true;
  if (name === "ZodEffects") return acceptsUndefined(node._def.schema);
  if (name === "ZodNullable" || name === "ZodReadonly" || name === "ZodBranded")
    return acceptsUndefined(node._def.innerType ?? node._def.type);
  return false;
}

function stringChecks(checks: Array<{ kind: string; value?: number; regex?: RegExp }> = []) {
  const out: Record<string, unknown> = {};
  for (const c of checks) {
    if (c.kind === "min") out.minLength = c.value;
    else if (c.kind === "max") out.maxLength = c.value;
    else if (c.kind === "regex" && c.regex) out.pattern = c.regex.source;
    else if (c.kind === "email" || c.kind === "url" || c.kind === "uuid")
      out.format = c.kind === "url" ? "uri" : c.kind;
  }
  return out;
}

function numberChecks(checks: Array<{ kind: string; value?: number; inclusive?: boolean }> = []) {
  const out: Record<string, unknown> = {};
  for (const c of checks) {
    if (c.kind === "min") out[c.inclusive === false ? "exclusiveMinimum" : "minimum"] = c.value;
    else if (c.kind === "max") out[c.inclusive === false ? "exclusiveMaximum" : "maximum"] = c.value;
  }
  return out;
}
