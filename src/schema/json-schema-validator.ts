/**
 * A small JSON Schema validator for what Goat checks on every call: the built-in tools' input, tools
 * defined from plain JSON Schema, hook output and MCP config files. It knows the keywords those schemas
 * use — `type`, `properties`, `required`, `additionalProperties`, `items`, `prefixItems`, `enum`,
 * `const`, string length, `pattern` and `format` (`json-formats.ts`), number bounds and `multipleOf`,
 * item counts, `uniqueItems`, `contains`, property counts, `patternProperties`, `propertyNames`,
 * `dependentRequired`, `anyOf`, `oneOf`, `allOf`, `not`, `if`/`then`/`else`, local `$ref`s, `nullable` —
 * fills in `default`s of missing properties, and words each problem so a model can fix its call
 * (`offset: expected integer, received string`). Keywords it does not know (dynamic or remote refs,
 * `unevaluatedProperties`…) are accepted as satisfied: the model still sees them, and the tool checks
 * what it must. It is Goat's only JSON Schema validator (structured output uses it too), so one schema
 * means the same on every path, and checking a tool call loads nothing.
 */

import { matchesFormat } from "./json-formats.js";
import type { StandardSchemaV1 } from "./standard-schema.js";

/** A JSON Schema: an object of keywords, or `true` / `false`. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/** How `validateJsonSchema` treats the value. */
export interface JsonSchemaValidationOptions {
  /**
   * Drop object properties the schema does not name, as zod's `z.object` does, instead of keeping
   * them (JSON Schema's default). `additionalProperties: false` still makes them an error.
   */
  removeAdditional?: boolean;
}

/** One problem: what is wrong, and the path to it (property names and array indexes). */
export interface JsonSchemaIssue {
  message: string;
  path: Array<string | number>;
}

/** A valid value (defaults filled in, unknown properties dropped if asked), or the problems. */
export type JsonSchemaValidation = { ok: true; value: unknown } | { ok: false; issues: JsonSchemaIssue[] };

/** Deeper than this, a `$ref` chain is taken to loop and the value is accepted as is. */
const MAX_REF_DEPTH = 64;

interface Walk {
  root: JsonSchema;
  removeAdditional: boolean;
  issues: JsonSchemaIssue[];
  refDepth: number;
  /** Where the walk is: pushed and popped as it descends, copied only into an issue. */
  path: Array<string | number>;
}

/** Records a problem at the current path (or at its child `key`). */
function report(walk: Walk, message: string, key?: string | number): JsonSchemaIssue {
  const issue = { message, path: key === undefined ? [...walk.path] : [...walk.path, key] };
  walk.issues.push(issue);
  return issue;
}

/** Checks a child value (a property or an item) with `key` on the path. */
function checkChild(schema: JsonSchema, value: unknown, key: string | number, walk: Walk): unknown {
  walk.path.push(key);
  try {
    return check(schema, value, walk);
  } finally {
    walk.path.pop();
  }
}

/**
 * Checks `value` against `schema`. Never throws and never changes `value`: a valid value comes back
 * as a copy where anything was filled in or dropped.
 *
 * @example
 * validateJsonSchema({ type: "object", properties: { n: { type: "integer" } } }, { n: "1" })
 * // { ok: false, issues: [{ message: "expected integer, received string", path: ["n"] }] }
 */
export function validateJsonSchema(
  schema: JsonSchema,
  value: unknown,
  options: JsonSchemaValidationOptions = {},
): JsonSchemaValidation {
  const walk: Walk = {
    root: schema,
    removeAdditional: options.removeAdditional === true,
    issues: [],
    refDepth: 0,
    path: [],
  };
  const out = check(schema, value, walk);
  return walk.issues.length === 0 ? { ok: true, value: out } : { ok: false, issues: walk.issues };
}

/**
 * The validator as a Standard Schema (vendor `goat`), the form every tool's `inputSchema` takes.
 * `T` is the type the schema describes (type-level only: nothing checks that it matches).
 */
export function jsonSchemaValidator<T = unknown>(
  schema: JsonSchema,
  options: JsonSchemaValidationOptions = {},
): StandardSchemaV1<unknown, T> {
  return {
    "~standard": {
      version: 1,
      vendor: "goat",
      validate: (value) => {
        const result = validateJsonSchema(schema, value, options);
        return result.ok ? { value: result.value as T } : { issues: result.issues };
      },
    },
  };
}

/** Checks one value; records problems in `walk.issues` and returns the value to keep. */
function check(schema: JsonSchema, value: unknown, walk: Walk): unknown {
  if (schema === true || schema === undefined || schema === null || typeof schema !== "object") {
    if (schema === false) report(walk, "no value is allowed here");
    return value;
  }
  if (typeof schema.$ref === "string") return checkRef(schema.$ref, value, walk);
  if (value === null && schema.nullable === true) return value;

  const before = walk.issues.length;
  const typeOk = checkType(schema, value, walk);
  if (!typeOk) return value;
  checkValue(schema, value, walk);
  let out = value;
  if (isPlainObject(value)) out = checkObject(schema, value, walk);
  else if (Array.isArray(value)) out = checkArray(schema, value, walk);
  if (walk.issues.length > before) return value;
  return checkCombinators(schema, out, walk);
}

function checkRef(ref: string, value: unknown, walk: Walk): unknown {
  const target = resolveRef(walk.root, ref);
  // A remote or broken reference cannot be followed: accepted, like any keyword this does not know.
  if (target === undefined || walk.refDepth >= MAX_REF_DEPTH) return value;
  walk.refDepth++;
  try {
    return check(target, value, walk);
  } finally {
    walk.refDepth--;
  }
}

/** Follows a local reference (`#`, `#/$defs/name`, `#/definitions/name`, any JSON pointer). */
function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === "boolean" || (node !== null && typeof node === "object")
    ? (node as JsonSchema)
    : undefined;
}

function checkType(schema: { readonly [k: string]: unknown }, value: unknown, walk: Walk): boolean {
  const type = schema.type;
  if (type === undefined) return true;
  const types = Array.isArray(type) ? (type as unknown[]) : [type];
  if (types.some((t) => hasType(value, t))) return true;
  report(walk, `expected ${types.map(String).join(" or ")}, received ${kindOf(value)}`);
  return false;
}

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isPlainObject(value);
    default:
      return true; // an unknown type name constrains nothing
  }
}

/** `enum`, `const`, and the string and number keywords. */
function checkValue(schema: { readonly [k: string]: unknown }, value: unknown, walk: Walk): void {
  const issue = (message: string) => report(walk, message);
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => sameJson(option, value))) {
    const options = schema.enum.map((o) => JSON.stringify(o)).join(" | ");
    WRONG_VALUES.add(issue(`expected one of ${options}, received ${preview(value)}`));
  }
  if ("const" in schema && !sameJson(schema.const, value)) {
    WRONG_VALUES.add(issue(`expected ${JSON.stringify(schema.const)}, received ${preview(value)}`));
  }
  if (typeof value === "string") {
    // Lengths count code points, as JSON Schema does; a long string is only walked when a bound is near.
    if (
      typeof schema.minLength === "number" &&
      value.length < schema.minLength * 2 &&
      codePoints(value) < schema.minLength
    )
      issue(`too short: expected at least ${plural(schema.minLength, "character")}`);
    if (
      typeof schema.maxLength === "number" &&
      value.length > schema.maxLength &&
      codePoints(value) > schema.maxLength
    )
      issue(`too long: expected at most ${plural(schema.maxLength, "character")}`);
    if (typeof schema.pattern === "string" && !matches(schema.pattern, value))
      issue(`does not match the pattern ${schema.pattern}`);
    if (typeof schema.format === "string" && !matchesFormat(schema.format, value))
      issue(`expected a string in the format ${schema.format}`);
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum)
      issue(`too small: expected a number >= ${schema.minimum}`);
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum)
      issue(`too small: expected a number > ${schema.exclusiveMinimum}`);
    if (typeof schema.maximum === "number" && value > schema.maximum)
      issue(`too big: expected a number <= ${schema.maximum}`);
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum)
      issue(`too big: expected a number < ${schema.exclusiveMaximum}`);
    if (typeof schema.multipleOf === "number" && schema.multipleOf > 0) {
      const ratio = value / schema.multipleOf;
      if (Math.abs(ratio - Math.round(ratio)) > 1e-9) issue(`expected a multiple of ${schema.multipleOf}`);
    }
  }
}

function checkObject(
  schema: { readonly [k: string]: unknown },
  value: Record<string, unknown>,
  walk: Walk,
): Record<string, unknown> {
  const properties = isPlainObject(schema.properties)
    ? (schema.properties as Record<string, JsonSchema>)
    : {};
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  const extra = schema.additionalProperties;
  const patterns = isPlainObject(schema.patternProperties)
    ? Object.entries(schema.patternProperties as Record<string, JsonSchema>)
    : [];
  const out: Record<string, unknown> = {};
  checkPropertyCounts(schema, value, walk);
  for (const name of required) {
    if (typeof name !== "string" || value[name] !== undefined) continue;
    const property = properties[name];
    if (isPlainObject(property) && "default" in property) continue;
    const type = isPlainObject(property) && typeof property.type === "string" ? property.type : undefined;
    report(walk, type ? `expected ${type}, received undefined` : "required", name);
  }
  for (const [name, property] of Object.entries(properties)) {
    if (value[name] !== undefined) out[name] = checkChild(property, value[name], name, walk);
    else if (isPlainObject(property) && "default" in property) out[name] = structuredClone(property.default);
    else if (name in value) out[name] = value[name];
  }
  for (const [name, item] of Object.entries(value)) {
    if (schema.propertyNames !== undefined) checkChild(schema.propertyNames as JsonSchema, name, name, walk);
    if (Object.hasOwn(properties, name)) continue;
    const byPattern = patterns.filter(([pattern]) => matches(pattern, name, false));
    if (byPattern.length > 0) {
      out[name] = item;
      for (const [, property] of byPattern) out[name] = checkChild(property, out[name], name, walk);
    } else if (extra === false) report(walk, `unrecognized key "${name}"`);
    else if (isPlainObject(extra) || extra === true)
      out[name] = checkChild(extra as JsonSchema, item, name, walk);
    else if (!walk.removeAdditional) out[name] = item;
  }
  return out;
}

/** `minProperties`, `maxProperties` and `dependentRequired` (a property that needs others beside it). */
function checkPropertyCounts(
  schema: { readonly [k: string]: unknown },
  value: Record<string, unknown>,
  walk: Walk,
): void {
  const count = Object.keys(value).length;
  if (typeof schema.minProperties === "number" && count < schema.minProperties)
    report(walk, `too few properties: expected at least ${schema.minProperties}`);
  if (typeof schema.maxProperties === "number" && count > schema.maxProperties)
    report(walk, `too many properties: expected at most ${schema.maxProperties}`);
  if (!isPlainObject(schema.dependentRequired)) return;
  for (const [name, needs] of Object.entries(schema.dependentRequired)) {
    if (value[name] === undefined || !Array.isArray(needs)) continue;
    for (const need of needs)
      if (typeof need === "string" && value[need] === undefined)
        report(walk, `required with "${name}"`, need);
  }
}

function checkArray(schema: { readonly [k: string]: unknown }, value: unknown[], walk: Walk): unknown[] {
  if (typeof schema.minItems === "number" && value.length < schema.minItems)
    report(walk, `too few items: expected at least ${schema.minItems}`);
  if (typeof schema.maxItems === "number" && value.length > schema.maxItems)
    report(walk, `too many items: expected at most ${schema.maxItems}`);
  if (schema.uniqueItems === true && value.some((item, i) => value.findIndex((o) => sameJson(o, item)) < i))
    report(walk, "expected unique items");
  if (
    schema.contains !== undefined &&
    !value.some((item) => passes(schema.contains as JsonSchema, item, walk))
  )
    report(walk, "no item matches the shape required of at least one");
  // Draft-07 wrote a tuple as an array of `items`; 2020-12 as `prefixItems`.
  const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : schema.items;
  const prefix = Array.isArray(tuple) ? (tuple as JsonSchema[]) : [];
  const items = schema.items;
  return value.map((item, i) => {
    if (i < prefix.length) return checkChild(prefix[i], item, i, walk);
    if (isPlainObject(items) || typeof items === "boolean")
      return checkChild(items as JsonSchema, item, i, walk);
    return item;
  });
}

/** `allOf`, `anyOf`, `oneOf` and `not`; a branch's filled-in value carries on to the next keyword. */
function checkCombinators(schema: { readonly [k: string]: unknown }, value: unknown, walk: Walk): unknown {
  let out = value;
  if (Array.isArray(schema.allOf)) {
    for (const branch of schema.allOf as JsonSchema[]) out = check(branch, out, walk);
  }
  if (Array.isArray(schema.anyOf)) out = checkBranches(schema.anyOf as JsonSchema[], out, walk, "any");
  if (Array.isArray(schema.oneOf)) out = checkBranches(schema.oneOf as JsonSchema[], out, walk, "one");
  if (schema.not !== undefined && passes(schema.not as JsonSchema, out, walk))
    report(walk, "matches a shape that is not allowed");
  if (schema.if !== undefined) {
    const branch = passes(schema.if as JsonSchema, out, walk) ? schema.then : schema.else;
    if (branch !== undefined) out = check(branch as JsonSchema, out, walk);
  }
  return out;
}

/** Whether `value` satisfies `schema`, without reporting anything. */
function passes(schema: JsonSchema, value: unknown, walk: Walk): boolean {
  const trial: Walk = { ...walk, issues: [], path: [...walk.path] };
  check(schema, value, trial);
  return trial.issues.length === 0;
}

/**
 * Issues raised by `enum` / `const`. In a union they usually mean "the other shape" (`behavior:
 * "deny"` against the `allow` branch), so a branch with one is a worse fit than any branch without.
 */
const WRONG_VALUES = new WeakSet<JsonSchemaIssue>();

/** How badly a branch missed: fewer issues is closer, and a wrong `const`/`enum` is furthest. */
function distance(issues: JsonSchemaIssue[]): number {
  return issues.length + (issues.some((issue) => WRONG_VALUES.has(issue)) ? 1_000_000 : 0);
}

/**
 * The branches of `anyOf` (one must match) or `oneOf` (exactly one). When none matches, the problems
 * of the branch that came closest are reported, which names the field to fix.
 */
function checkBranches(branches: JsonSchema[], value: unknown, walk: Walk, mode: "any" | "one"): unknown {
  let matched: { value: unknown } | undefined;
  let matches = 0;
  let closest: JsonSchemaIssue[] | undefined;
  for (const branch of branches) {
    const trial: Walk = { ...walk, issues: [] };
    const out = check(branch, value, trial);
    if (trial.issues.length === 0) {
      matches++;
      matched ??= { value: out };
      if (mode === "any") break;
    } else if (closest === undefined || distance(trial.issues) < distance(closest)) closest = trial.issues;
  }
  if (matched === undefined) {
    if (closest) walk.issues.push(...closest);
    else report(walk, "matches none of the allowed shapes");
    return value;
  }
  if (matches > 1) report(walk, "matches more than one of the allowed shapes");
  return matched.value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values (object key order ignored). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameJson(item, other[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => sameJson((a as any)[k], (b as any)[k]));
}

/**
 * A pattern the schema gives; one that is not a valid JavaScript regex matches `invalid` (true where
 * it constrains a value, so it constrains nothing; false where it selects properties).
 */
function matches(pattern: string, value: string, invalid = true): boolean {
  try {
    return new RegExp(pattern, "u").test(value);
  } catch {
    return invalid;
  }
}

/** What a value is, in a message: `string`, `integer`… as the schema names types; also `NaN`. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isNaN(value) ? "NaN" : "number";
  return typeof value;
}

/** A short rendering of a received value for a message. */
function preview(value: unknown): string {
  const text = value === undefined ? "undefined" : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
