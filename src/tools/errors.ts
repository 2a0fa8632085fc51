/**
 * The error for a tool definition Goat cannot use. `defineTool`, `jsonSchema`, `tool` /
 * `createSdkMcpServer` and the tool registry throw it when the tool is made, so a mistake fails where
 * it was written rather than on the model's first call.
 */
import { GoatError } from "../errors.js";

/**
 * A tool definition that cannot be used (code `invalid_tool`): a bad name, no `execute`, an input
 * schema Goat cannot read or describe as JSON Schema, two tools with one name. `tool` names the tool
 * when it is known.
 */
export class InvalidToolError extends GoatError {
  override name = "InvalidToolError";
  /** The tool at fault, when the error is about one tool. */
  readonly tool?: string;
  constructor(message: string, tool?: string) {
    super(message, { code: "invalid_tool" });
    this.tool = tool;
  }
}
