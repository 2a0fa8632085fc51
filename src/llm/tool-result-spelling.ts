/**
 * The one spelling of a tool result's failure flag in Goat's messages is `isError`. Earlier versions
 * wrote it `is_error`, as Anthropic's wire does, and so do the Claude Agent SDK's messages: a message
 * read from outside (a transcript or durable session written before, an SDK user message) goes
 * through `withCurrentSpelling` once, where it enters, and everything past that reads `isError` only.
 */
import type { ContentBlock, ToolResultBlock } from "./types.js";

/** A tool_result block as older transcripts and Claude's wire spell it. */
type LegacyToolResultBlock = Omit<ToolResultBlock, "isError"> & {
  is_error?: boolean;
  isError?: boolean;
};

/**
 * `message` with every tool_result's `is_error` read as `isError` (the new spelling wins when both are
 * there). The same object when nothing is spelled the old way, so reading a current transcript
 * allocates nothing.
 */
export function withCurrentSpelling<M extends { content?: unknown }>(message: M): M {
  const content = message.content;
  if (!Array.isArray(content) || !content.some(isLegacyToolResult)) return message;
  return {
    ...message,
    content: content.map((block) => (isLegacyToolResult(block) ? currentToolResult(block) : block)),
  };
}

/** A tool_result block in the current spelling. */
function currentToolResult(block: LegacyToolResultBlock): ToolResultBlock {
  const { is_error, isError, ...rest } = block;
  return (isError ?? is_error) === true ? { ...rest, isError: true } : rest;
}

function isLegacyToolResult(block: unknown): block is LegacyToolResultBlock {
  return (
    typeof block === "object" &&
    block !== null &&
    (block as ContentBlock).type === "tool_result" &&
    Object.hasOwn(block, "is_error")
  );
}
