/**
 * `defineTool` makes a tool from an input schema and an execute function, and `runTool` is the one way
 * a tool is called: input is validated first, so `execute` never sees input that fails the schema.
 */

import { issuePath, type StandardSchemaV1 } from "../schema/standard-schema.js";
import { jsonSchemaOf } from "../schema/to-json-schema.js";
import { InvalidToolError } from "./errors.js";
import {
  type InferShape,
  type JsonSchemaInput,
  normalizeInputSchema,
  type StandardShape,
} from "./tool-schema.js";
import type { SideEffect, Tool, ToolContext, ToolResult } from "./types.js";

/** A tool's input schema: any Standard Schema (zod 3.25+ and 4, valibot, arktype…) or `jsonSchema({ … })`. */
export type ToolInputSchema<TInput> = StandardSchemaV1<unknown, TInput> | JsonSchemaInput<TInput>;

/** What `defineTool` takes. */
export interface ToolSpec<TInput, TDetails> {
  name: string;
  description: string;
  /**
   * Validates the model's input: a zod, valibot, arktype or other Standard Schema, or a plain JSON
   * Schema wrapped in `jsonSchema()`. (`defineTool` also takes a raw shape, `{ city: z.string() }`.)
   */
  inputSchema: ToolInputSchema<TInput>;
  /**
   * The JSON Schema the model sees. Needed only when the schema's library cannot produce one (valibot,
   * effect: pass their converter's output); zod, arktype and `jsonSchema()` describe themselves.
   */
  inputJSONSchema?: Record<string, unknown>;
  /** Defaults to `mutating`: a tool is assumed unsafe to run concurrently unless it says otherwise. */
  sideEffect?: SideEffect;
  resourceKey?: (input: TInput, ctx: { cwd: string }) => string | undefined;
  /** Longest a call may run (ms; 0 for no limit); default the session's `toolTimeoutMs` (10 minutes). */
  timeoutMs?: number;
  execute: (input: TInput, ctx: ToolContext) => Promise<ToolResult<TDetails>> | ToolResult<TDetails>;
}

/** A `ToolSpec` whose input is described by a raw shape of schemas, `{ city: z.string() }`. */
export type ShapeToolSpec<Shape extends StandardShape, TDetails> = Omit<
  ToolSpec<InferShape<Shape>, TDetails>,
  "inputSchema"
> & { inputSchema: Shape };

/**
 * Defines a tool. The input schema may be any Standard Schema (zod 3.25+ or 4, valibot, arktype…), a
 * raw shape of them, or a plain JSON Schema wrapped in `jsonSchema()`; anything else fails here,
 * naming the tool.
 *
 * @example
 * const add = defineTool({
 *   name: "add",
 *   description: "Adds two numbers",
 *   inputSchema: z.object({ a: z.number(), b: z.number() }),
 *   sideEffect: "none",
 *   execute: async ({ a, b }) => ({ content: String(a + b) }),
 * });
 */
export function defineTool<TInput, TDetails = unknown>(
  spec: ToolSpec<TInput, TDetails>,
): Tool<TInput, TDetails>;
/** Defines a tool whose input is a raw shape of schemas (`{ city: z.string() }`), as the SDK's `tool()` takes. */
export function defineTool<Shape extends StandardShape, TDetails = unknown>(
  spec: ShapeToolSpec<Shape, TDetails>,
): Tool<InferShape<Shape>, TDetails>;
export function defineTool(spec: ToolSpec<any, any> | ShapeToolSpec<any, any>): Tool {
  if (typeof spec?.name !== "string" || !/^[a-zA-Z0-9_-]{1,128}$/.test(spec.name)) {
    throw new InvalidToolError(`Tool name "${spec?.name}" must be 1-128 letters, digits, "_" or "-"`);
  }
  if (typeof spec.execute !== "function")
    throw new InvalidToolError(`Tool "${spec.name}": execute must be a function`, spec.name);
  if (
    spec.inputJSONSchema !== undefined &&
    (typeof spec.inputJSONSchema !== "object" ||
      spec.inputJSONSchema === null ||
      Array.isArray(spec.inputJSONSchema))
  )
    throw new InvalidToolError(
      `Tool "${spec.name}": inputJSONSchema must be a JSON Schema object`,
      spec.name,
    );
  const schema = normalizeInputSchema(spec.name, spec.inputSchema, spec.inputJSONSchema);
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: schema.validator,
    jsonSchema: schema.json,
    sideEffect: spec.sideEffect ?? "mutating",
    resourceKey: spec.resourceKey,
    ...(spec.timeoutMs !== undefined ? { timeoutMs: checkedTimeout(spec.name, spec.timeoutMs) } : {}),
    execute: async (input, ctx) => spec.execute(input, ctx),
  };
}

function checkedTimeout(name: string, ms: unknown): number {
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0)
    throw new InvalidToolError(
      `Tool "${name}": timeoutMs must be a number of milliseconds ≥ 0 (0: no limit), got ${String(ms)}`,
      name,
    );
  return ms;
}

/**
 * The JSON Schema a schema's own library gives for it (zod, arktype and other Standard JSON Schema
 * libraries); throws when it has none.
 */
export function toJsonSchema(schema: StandardSchemaV1): Record<string, unknown> {
  const json = jsonSchemaOf(schema);
  if (json === undefined)
    throw new InvalidToolError(
      `A ${schema["~standard"].vendor} schema cannot describe itself as JSON Schema.`,
    );
  return json;
}

/** Result of validating a tool's input. */
export type ValidationOutcome<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Validates raw model input against a tool's schema. The error message names each bad field in words
 * the model can act on, e.g. `file_path: expected string, received number`. Asynchronous because a
 * Standard Schema may validate asynchronously; zod and Goat's own schemas answer at once.
 */
export async function validateToolInput<T>(tool: Tool<T>, input: unknown): Promise<ValidationOutcome<T>> {
  let result: StandardSchemaV1.Result<T>;
  try {
    result = await tool.inputSchema["~standard"].validate(input ?? {});
  } catch (error) {
    // A schema that throws (a refinement with a bug) is the tool's fault, not the model's input.
    return {
      ok: false,
      message: `InputValidationError: ${tool.name}'s input schema failed: ${(error as Error)?.message ?? String(error)}`,
    };
  }
  if (!result.issues) return { ok: true, value: result.value };
  const lines = result.issues.map((issue) => `- ${issuePath(issue)}: ${issue.message}`);
  return {
    ok: false,
    message: `InputValidationError: ${tool.name} was called with invalid input:\n${lines.join("\n")}\nFix these fields and call ${tool.name} again.`,
  };
}

/**
 * Validates and runs one tool call. Never throws: invalid input, a thrown error and an abort all come
 * back as an `isError` result the model can read.
 */
export async function runTool(tool: Tool, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const checked = await validateToolInput(tool, input);
  if (!checked.ok) return { content: checked.message, isError: true };
  return executeValidated(tool, checked.value, ctx);
}

/**
 * Runs a tool on input that already passed `validateToolInput` (its parsed value, transforms applied):
 * the scheduler validates once, before hooks and permissions, and calls this so a schema's
 * `transform` never runs twice. Never throws, as `runTool`.
 */
export async function executeValidated(tool: Tool, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  try {
    return normalizeToolResult(await tool.execute(input, ctx), tool.name);
  } catch (err) {
    if (ctx.signal.aborted) return { content: `${tool.name} was interrupted by the user.`, isError: true };
    const message = err instanceof Error ? err.message : String(err);
    return { content: `${tool.name} failed: ${message}`, isError: true };
  }
}

/**
 * Makes whatever a tool returned into a valid result, so a user tool that returns a plain string,
 * nothing, or an object without `content` cannot break the transcript: a string is the content, a
 * missing result says so, other values are shown as JSON. `is_error` is accepted for `isError`.
 */
function normalizeToolResult(value: unknown, toolName: string): ToolResult {
  if (typeof value === "string") return { content: value };
  if (value === undefined || value === null) return { content: `(${toolName} returned no result)` };
  if (typeof value !== "object") return { content: String(value) };
  const result = value as Record<string, unknown>;
  const isError = result.isError === true || result.is_error === true;
  const content = result.content;
  const valid =
    typeof content === "string" ||
    (Array.isArray(content) &&
      content.every(
        (b) => b && typeof b === "object" && ((b as any).type === "text" || (b as any).type === "image"),
      ));
  if (valid)
    return result.isError === undefined && isError
      ? { ...(value as ToolResult), isError }
      : (value as ToolResult);
  const text =
    content === undefined
      ? JSON.stringify(value)
      : typeof content === "object"
        ? JSON.stringify(content)
        : String(content);
  return { content: text ?? "", isError, details: result.details };
}
