/**
 * The JSON Schema a model sees for a tool, taken from the schema's own library, so Goat depends on
 * none of them: the Standard JSON Schema extension (`~standard.jsonSchema`: zod 4.2+, arktype); for
 * zod 4 schemas made before zod had it (4.0, 4.1, and `zod/v4` of zod 3.25) zod's own `toJSONSchema`,
 * from the zod the program installed; for zod 3 schemas Goat's converter. A schema none of these can
 * describe (valibot, effect…) needs its JSON Schema given beside it (`inputJSONSchema`).
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { jsonSchemaConverterOf, type StandardSchemaV1 } from "./standard-schema.js";
import { isZod3Schema, zod3ToJsonSchema } from "./zod3-json-schema.js";

/**
 * The JSON Schema of what `schema` accepts, or `undefined` when its library offers no converter.
 * Throws when the library has one and it fails (a schema it cannot describe), with its reason.
 */
export function jsonSchemaOf(schema: StandardSchemaV1): Record<string, unknown> | undefined {
  const converter = jsonSchemaConverterOf(schema);
  if (converter) {
    const vendor = schema["~standard"].vendor;
    // zod throws on types JSON Schema cannot express (a Date, a function); as before, those become
    // "any value" and zod still validates them.
    const libraryOptions = vendor === "zod" ? { unrepresentable: "any" } : undefined;
    return withoutDialect(converter.input({ target: "draft-2020-12", libraryOptions }));
  }
  if (isZod4Schema(schema)) return withoutDialect(zod4Core().toJSONSchema(schema, ZOD4_OPTIONS));
  if (isZod3Schema(schema)) return zod3ToJsonSchema(schema);
  return undefined;
}

/** True for a zod 4 schema (classic or mini): it carries zod 4's `_zod` internals. */
function isZod4Schema(value: unknown): boolean {
  return typeof value === "object" && value !== null && "_zod" in value;
}

const ZOD4_OPTIONS = { io: "input", unrepresentable: "any" } as const;

interface Zod4Core {
  toJSONSchema(schema: unknown, options: typeof ZOD4_OPTIONS): Record<string, unknown>;
}

let core: Zod4Core | undefined;

/**
 * zod's `toJSONSchema`, from the same zod module instance the program's schemas came from: the ES
 * module entry of `zod/v4/core` (Node 20.19+ can `require` an ES module, sharing the instance an
 * `import` loaded). zod 4.0's registry of descriptions is per module instance, so its CommonJS copy
 * would lose every `.describe()`.
 */
function zod4Core(): Zod4Core {
  if (core) return core;
  const require = createRequire(import.meta.url);
  try {
    core = require(fileURLToPath(import.meta.resolve("zod/v4/core"))) as Zod4Core;
  } catch (error) {
    throw new TypeError(
      `This zod 4 schema has no JSON Schema converter of its own (zod 4.2 and later have one), and zod's toJSONSchema could not be loaded (${(error as Error).message}). Upgrade zod, or pass inputJSONSchema: z.toJSONSchema(schema, { io: "input" }).`,
    );
  }
  return core;
}

/** The `$schema` dialect line is noise to a model and absent from every provider's examples. */
function withoutDialect(json: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = json;
  return rest;
}
