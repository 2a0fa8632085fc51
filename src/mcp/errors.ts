/** The error for an MCP configuration that cannot be used (`.mcp.json`, settings files, `--mcp-config`). */
import { GoatError } from "../errors.js";

/** An MCP configuration that cannot be used (code `invalid_mcp_config`); the message names its file. */
export class McpConfigError extends GoatError {
  override name = "McpConfigError";
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: "invalid_mcp_config", cause: options.cause });
  }
}
