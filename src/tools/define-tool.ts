/**
 * `defineTool` makes a tool from a zod schema and an execute function, and `runTool` is the one way a
 * tool is called: input is validated first, so `execute` never sees input that fails the schema.
 */
import type * as z from "zod";
import { type JsonSchemaInput, normalizeInputSchema, zodToJsonSchema } from "./tool-schema.js";
import type { SideEffect, Tool, ToolContext, ToolResult } from "./types.js";

/** What `defineTool` takes. */
export interface ToolSpec<TInput, TDetails> {
  name: string;
  description: string;
  /** A zod schema; `defineTool` also takes a raw zod shape, a zod 3 schema or `jsonSchema({ … })`. */
  inputSchema: z.ZodType<TInput>;
  /** Defaults to `mutating`: a tool is assumed unsafe to run concurrently unless it says otherwise. */
  sideEffect?: SideEffect;
  resourceKey?: (input: TInput, ctx: { cwd: string }) => string | undefined;
  /** Longest a call may run (ms; 0 for no limit); default the session's `toolTimeoutMs` (10 minutes). */
  timeoutMs?: number;
  execute: (input: TInput, ctx: ToolContext) => Promise<ToolResult<TDetails>> | ToolResult<TDetails>;
}

/** A `ToolSpec` whose input is described by a raw zod shape, `{ city: z.string() }`. */
export type ShapeToolSpec<Shape extends z.ZodRawShape, TDetails> = Omit<
  ToolSpec<z.infer<z.ZodObject<Shape>>, TDetails>,
  "inputSchema"
> & { inputSchema: Shape };

/** A `ToolSpec` whose input is a plain JSON Schema (`jsonSchema({ … })`) or a zod 3 schema. */
export type LooseToolSpec<TInput, TDetails> = Omit<ToolSpec<TInput, TDetails>, "inputSchema"> & {
  inputSchema: JsonSchemaInput<TInput> | Zod3Schema<TInput>;
};

/** The part of a zod 3 schema `defineTool` relies on (its type, `_def` and `safeParse`). */
export interface Zod3Schema<T> {
  readonly _output: T;
  readonly _def: object;
  safeParse(input: unknown): unknown;
}

/**
 * Defines a tool. The input schema may be a zod schema, a raw zod shape, a zod 3 schema, or a plain
 * JSON Schema wrapped in `jsonSchema()`; anything else fails here, naming the tool.
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
export function defineTool<Shape extends z.ZodRawShape, TDetails = unknown>(
  spec: ShapeToolSpec<Shape, TDetails>,
): Tool<z.infer<z.ZodObject<Shape>>, TDetails>;
export function defineTool<TInput = Record<string, unknown>, TDetails = unknown>(
  spec: LooseToolSpec<TInput, TDetails>,
): Tool<TInput, TDetails>;
export function defineTool(
  spec: ToolSpec<any, any> | ShapeToolSpec<any, any> | LooseToolSpec<any, any>,
): Tool {
  if (typeof spec?.name !== "string" || !/^[a-zA-Z0-9_-]{1,128}$/.test(spec.name)) {
    throw new Error(`Tool name "${spec?.name}" must be 1-128 letters, digits, "_" or "-"`);
  }
  if (typeof spec.execute !== "function")
    throw new TypeError(`Tool "${spec.name}": execute must be a function`);
  const schema = normalizeInputSchema(spec.name, spec.inputSchema);
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
    throw new TypeError(
      `Tool "${name}": timeoutMs must be a number of milliseconds ≥ 0 (0: no limit), got ${String(ms)}`,
    );
  return ms;
}

/** Derives the JSON Schema the model sees from a zod schema. */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return zodToJsonSchema(schema);
}

/** Result of validating a tool's input. */
export type ValidationOutcome<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Validates raw model input against a tool's schema. The error message names each bad field in words
 * the model can act on, e.g. `file_path: expected string, received number`.
 */
export function validateToolInput<T>(tool: Tool<T>, input: unknown): ValidationOutcome<T> {
  const parsed = tool.inputSchema.safeParse(input ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  const lines = parsed.error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join(".") : "(input)";
    return `- ${path}: ${issue.message}`;
  });
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
  const checked = validateToolInput(tool, input);
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
export function normalizeToolResult(value: unknown, toolName: string): ToolResult {
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
