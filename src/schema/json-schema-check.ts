/**
 * Whether a JSON Schema is usable, before any value is checked against it: the validator
 * (`json-schema-validator.ts`) accepts what it cannot read as satisfied, which suits a tool's schema the
 * model only reads, but a caller's own schema (structured output) that says `type: "nope"` or has a
 * broken `pattern` is a mistake to report when it is given, not a check that silently passes.
 */

const TYPES = new Set(["string", "number", "integer", "boolean", "null", "array", "object"]);
/** Keywords whose value is one schema. */
const ONE_SCHEMA = [
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "additionalItems",
];
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const NUMBERS = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
];

/** The first problem found in `schema`, as `/path/to/keyword: what is wrong`, or undefined. */
export function findSchemaProblem(schema: unknown, at = ""): string | undefined {
  if (typeof schema === "boolean") return undefined;
  if (schema === null || typeof schema !== "object" || Array.isArray(schema))
    return `${at || "(root)"}: a schema is an object or a boolean`;
  const s = schema as Record<string, unknown>;
  return (
    ownProblem(s, at) ??
    firstOf(ONE_SCHEMA, (k) =>
      k in s && !Array.isArray(s[k]) ? findSchemaProblem(s[k], `${at}/${k}`) : undefined,
    ) ??
    firstOf(SCHEMA_LISTS, (k) => listProblem(s[k], `${at}/${k}`)) ??
    firstOf(SCHEMA_MAPS, (k) => mapProblem(s[k], `${at}/${k}`, k === "patternProperties"))
  );
}

/** The keywords of this schema that are not schemas themselves. */
function ownProblem(s: Record<string, unknown>, at: string): string | undefined {
  const types = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type];
  const badType = types.find((t) => typeof t !== "string" || !TYPES.has(t));
  if (badType !== undefined) return `${at}/type: ${JSON.stringify(badType)} is not a JSON Schema type`;
  if (
    s.required !== undefined &&
    !(Array.isArray(s.required) && s.required.every((r) => typeof r === "string"))
  )
    return `${at}/required: must be a list of property names`;
  if (s.enum !== undefined && !Array.isArray(s.enum)) return `${at}/enum: must be a list`;
  const badNumber = NUMBERS.find((k) => k in s && typeof s[k] !== "number");
  if (badNumber) return `${at}/${badNumber}: must be a number`;
  if (s.pattern !== undefined && !isRegex(s.pattern)) return `${at}/pattern: not a valid regular expression`;
  if (s.$ref !== undefined && typeof s.$ref !== "string") return `${at}/$ref: must be a string`;
  return undefined;
}

function listProblem(list: unknown, at: string): string | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) return `${at}: must be a list of schemas`;
  return firstOf(list, (item, i) => findSchemaProblem(item, `${at}/${i}`));
}

function mapProblem(map: unknown, at: string, keysArePatterns: boolean): string | undefined {
  if (map === undefined) return undefined;
  if (map === null || typeof map !== "object" || Array.isArray(map))
    return `${at}: must be an object of schemas`;
  return firstOf(Object.entries(map), ([name, item]) =>
    keysArePatterns && !isRegex(name)
      ? `${at}/${name}: not a valid regular expression`
      : findSchemaProblem(item, `${at}/${name}`),
  );
}

function firstOf<T>(
  items: readonly T[],
  problem: (item: T, i: number) => string | undefined,
): string | undefined {
  for (let i = 0; i < items.length; i++) {
    const found = problem(items[i], i);
    if (found !== undefined) return found;
  }
  return undefined;
}

function isRegex(pattern: unknown): boolean {
  if (typeof pattern !== "string") return false;
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}
