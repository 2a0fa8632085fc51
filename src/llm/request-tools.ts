/** What every wire's request mapper asks of a request's tools. */
import type { ModelRequest, ToolDefinition } from "./types.js";

/** Whether the request offers tools (an empty list offers none, and no wire is sent an empty one). */
export function hasTools(request: ModelRequest): request is ModelRequest & { tools: ToolDefinition[] } {
  return request.tools !== undefined && request.tools.length > 0;
}
