/**
 * The Standard Schema interface (https://standardschema.dev), written out here as the spec asks
 * implementers to do rather than depend on a package: the contract zod (3.24+ and 4), valibot,
 * arktype, effect and others implement under the `~standard` key. Goat validates every tool's input
 * through it, so a tool can be written with any of those libraries and Goat itself needs none of them.
 * The Standard JSON Schema extension (`~standard.jsonSchema`) is how a schema hands over its JSON
 * Schema; zod 4.2+ and arktype implement it.
 */

/** A schema any Standard Schema library made: `schema["~standard"].validate(value)`. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

/** The types of the Standard Schema contract. */
export declare namespace StandardSchemaV1 {
  /** What every Standard Schema carries under `~standard`. */
  interface Props<Input = unknown, Output = Input> {
    /** The version of the standard: 1. */
    readonly version: 1;
    /** The library that made the schema (`zod`, `valibot`, `arktype`, `goat`…). */
    readonly vendor: string;
    /** Checks a value; may answer synchronously or with a promise. */
    readonly validate: (
      value: unknown,
      options?: Options | undefined,
    ) => Result<Output> | Promise<Result<Output>>;
    /** Type-level only: the input and output types. */
    readonly types?: Types<Input, Output> | undefined;
  }
  /** Vendor-specific options of `validate`. */
  interface Options {
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
  /** What `validate` answers. */
  type Result<Output> = SuccessResult<Output> | FailureResult;
  /** A valid value, after the schema's own transforms and defaults. */
  interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  /** An invalid value: what is wrong and where. */
  interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  /** One problem, with the path to the offending part of the value. */
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  /** A path step some libraries give as an object. */
  interface PathSegment {
    readonly key: PropertyKey;
  }
  /** The types a schema carries for inference. */
  interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  /** The type a schema accepts. */
  type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["input"];
  /** The type a schema produces (what a tool's `execute` receives). */
  type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}

/** The Standard JSON Schema extension: a schema that can describe itself as JSON Schema. */
export interface StandardJSONSchemaConverter {
  /** The JSON Schema of what the schema accepts. May throw when the schema cannot be described. */
  readonly input: (options: {
    readonly target: string;
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }) => Record<string, unknown>;
}

/** True for a value that implements Standard Schema (version 1, with a `validate` function). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  const props = (value as { "~standard"?: Partial<StandardSchemaV1.Props> })["~standard"];
  return (
    typeof props === "object" && props !== null && props.version === 1 && typeof props.validate === "function"
  );
}

/** The schema's JSON Schema converter, when its library implements the extension. */
export function jsonSchemaConverterOf(schema: StandardSchemaV1): StandardJSONSchemaConverter | undefined {
  const converter = (schema["~standard"] as { jsonSchema?: Partial<StandardJSONSchemaConverter> }).jsonSchema;
  return typeof converter?.input === "function" ? (converter as StandardJSONSchemaConverter) : undefined;
}

/** A dotted path for messages: `todos.0.status`; `(input)` for the value itself. */
export function issuePath(issue: StandardSchemaV1.Issue): string {
  const keys = (issue.path ?? []).map((step) =>
    typeof step === "object" && step !== null ? (step as StandardSchemaV1.PathSegment).key : step,
  );
  return keys.length > 0 ? keys.map(String).join(".") : "(input)";
}
