/**
 * Structured output (`outputFormat: { type: "json_schema", schema }`), as Claude Code does it: the
 * model is offered a `StructuredOutput` tool whose input schema is the user's schema. A call that
 * validates ends the run at once and its input becomes the result's `structured_output`; a call that
 * does not gets the validation errors back (`/population: expected integer, received string`) to fix; an answer in plain
 * text is told to call the tool. After five failures the run ends with
 * `error_max_structured_output_retries`. The schema is checked by Goat's one JSON Schema validator,
 * the one tools' input goes through, so `format` and every other keyword mean the same on both.
 */
import { InvalidOptionError } from "../errors.js";
import { findSchemaProblem } from "../schema/json-schema-check.js";
import { jsonSchemaValidator, validateJsonSchema } from "../schema/json-schema-validator.js";
import type { Tool } from "../tools/types.js";

/** The `outputFormat` option (the Claude Agent SDK's `JsonSchemaOutputFormat`). */
export interface OutputFormat {
  type: "json_schema";
  /** A JSON Schema of an object (the keywords `schema/json-schema-validator.ts` lists are checked). */
  schema: Record<string, unknown>;
}

/** The tool's name, as Claude Code names it. */
export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";
/** Failed attempts (invalid calls and plain-text answers) before the run gives up. */
const MAX_STRUCTURED_OUTPUT_ATTEMPTS = 5;

const ACCEPTED = "Structured output provided successfully.";
const CALL_THE_TOOL = `You must give your final answer by calling the ${STRUCTURED_OUTPUT_TOOL} tool with input that matches its schema. Call it now.`;

/** One session's structured-output state; each run starts afresh. */
export interface StructuredOutput {
  readonly tool: Tool;
  /** Forgets the previous run's output and failures. */
  reset(): void;
  /** True once a valid output was given or the attempts are spent: the run stops. */
  done(): boolean;
  /**
   * Called when the model ended its answer: the reminder to call the tool (counted as a failure),
   * or undefined when an output was given or the attempts are spent.
   */
  nudge(): string | undefined;
  /**
   * What the run gave: the valid output, or why the attempts ran out (the host makes a successful
   * run's result `error_max_structured_output_retries` then), or undefined while neither.
   */
  verdict(): StructuredVerdict | undefined;
}

/** A run's structured output, or the last problem when the attempts are spent without one. */
export type StructuredVerdict = { output: unknown } | { exhausted: string };

/** A compiled validator: undefined when `value` is valid, else one line per problem. */
type Validate = (value: unknown) => string[] | undefined;

/** Compiles the schema and builds the tool. Throws when the schema is not a usable JSON Schema. */
export async function createStructuredOutput(format: OutputFormat): Promise<StructuredOutput> {
  const validate = compileSchema(format.schema);
  let output: { value: unknown } | undefined;
  let failures = 0;
  let lastProblem = "";

  const jsonSchema: Record<string, unknown> = { ...format.schema };
  delete jsonSchema.$schema;
  const tool: Tool<Record<string, unknown>> = {
    name: STRUCTURED_OUTPUT_TOOL,
    description:
      "Return your final answer in the requested structured format. Call this tool exactly once, at the end, with input that matches its schema; the run ends when the input is valid.",
    // Any object gets through to execute, which checks it against the user's schema.
    inputSchema: jsonSchemaValidator<Record<string, unknown>>({ type: "object" }),
    jsonSchema,
    sideEffect: "none",
    execute: async (input) => {
      if (output) return { content: ACCEPTED };
      const problems = validate(input);
      if (!problems) {
        output = { value: input };
        return { content: ACCEPTED };
      }
      failures++;
      lastProblem = problems.join("; ");
      const left = MAX_STRUCTURED_OUTPUT_ATTEMPTS - failures;
      return {
        content: `The output does not match the schema:\n${problems.join("\n")}\n${left > 0 ? `Fix it and call ${STRUCTURED_OUTPUT_TOOL} again (${left} attempt${left === 1 ? "" : "s"} left).` : "No attempts are left."}`,
        isError: true,
      };
    },
  };

  return {
    tool,
    reset() {
      output = undefined;
      failures = 0;
      lastProblem = "";
    },
    done: () => output !== undefined || failures >= MAX_STRUCTURED_OUTPUT_ATTEMPTS,
    nudge() {
      if (output || failures >= MAX_STRUCTURED_OUTPUT_ATTEMPTS) return undefined;
      failures++;
      lastProblem = `the model answered in text without calling ${STRUCTURED_OUTPUT_TOOL}`;
      return failures >= MAX_STRUCTURED_OUTPUT_ATTEMPTS ? undefined : CALL_THE_TOOL;
    },
    verdict() {
      if (output) return { output: output.value };
      if (failures < MAX_STRUCTURED_OUTPUT_ATTEMPTS) return undefined;
      return {
        exhausted: `No valid structured output after ${MAX_STRUCTURED_OUTPUT_ATTEMPTS} attempts (last: ${lastProblem}).`,
      };
    },
  };
}

/**
 * Checks the schema once, then gives the validator every tool uses: one line per problem, at its
 * JSON pointer (`/population: expected integer, received string`).
 */
function compileSchema(schema: Record<string, unknown>): Validate {
  const problem = findSchemaProblem(schema);
  if (problem !== undefined)
    throw new InvalidOptionError(
      "outputFormat",
      `outputFormat.schema is not a valid JSON Schema: ${problem}`,
    );
  return (value) => {
    const result = validateJsonSchema(schema, value);
    if (result.ok) return undefined;
    return result.issues.map(
      (issue) => `${issue.path.length === 0 ? "(root)" : `/${issue.path.join("/")}`}: ${issue.message}`,
    );
  };
}

/**
 * A session's structured output: none without `outputFormat`, and compiled when the session starts
 * (compiling the schema loads the validator, which a session without it never pays for).
 */
export interface SessionStructuredOutput {
  /** Compiles the schema (once, at `start()`); nothing without `outputFormat`. Throws for a bad schema. */
  compile(): Promise<void>;
  /** The compiled state, once `compile()` has run with a format. */
  current(): StructuredOutput | undefined;
}

/** The session's structured output for `format`, not compiled yet. */
export function sessionStructuredOutput(format: OutputFormat | undefined): SessionStructuredOutput {
  let compiled: StructuredOutput | undefined;
  return {
    async compile() {
      if (format) compiled = await createStructuredOutput(format);
    },
    current: () => compiled,
  };
}
