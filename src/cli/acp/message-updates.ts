/**
 * Goat's SDK messages as ACP `session/update`s: streamed text and thinking as message and thought
 * chunks, tool calls with their kind, locations and diffs, tool results as tool call updates,
 * TodoWrite as a plan. One translator per session: it remembers each call's name until its result.
 * Subagents' messages (`parent_tool_use_id` set) are left out: the editor shows the Task call itself.
 */
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { ContentBlock, SDKContentBlock, SDKMessage } from "../../index.js";
import { planOfTodos, toolCallView } from "./tool-view.js";

/** Turns SDK messages into the updates to send, in order. */
export class MessageUpdates {
  private readonly toolNames = new Map<string, string>();
  private readonly running = new Set<string>();
  /** Whether this message's text and thinking already went out as stream deltas. */
  private streamed = false;

  /** The updates `message` makes (none for messages the client has no use for). */
  updatesOf(message: SDKMessage): SessionUpdate[] {
    if ("parent_tool_use_id" in message && message.parent_tool_use_id !== null) return [];
    switch (message.type) {
      case "stream_event":
        return this.deltaUpdates(message.event);
      case "assistant": {
        const updates = this.assistantUpdates(message.message.content, !this.streamed);
        this.streamed = false;
        return updates;
      }
      case "tool_progress":
        // Once per call: the editor shows it running (the output comes with the result).
        if (this.running.has(message.tool_use_id)) return [];
        this.running.add(message.tool_use_id);
        return [
          { sessionUpdate: "tool_call_update", toolCallId: message.tool_use_id, status: "in_progress" },
        ];
      case "user":
        return typeof message.message.content === "string" ? [] : this.resultUpdates(message.message.content);
      default:
        return [];
    }
  }

  /** The updates that replay `content` of a stored message (session/load), user prompts included. */
  historyUpdates(role: "user" | "assistant", content: string | ContentBlock[]): SessionUpdate[] {
    if (role === "assistant") return typeof content === "string" ? [] : this.assistantUpdates(content, true);
    if (typeof content === "string") return [chunk("user_message_chunk", content)];
    const updates: SessionUpdate[] = [];
    for (const block of content) {
      if (block.type === "text") updates.push(chunk("user_message_chunk", block.text));
      else if (block.type === "image" && block.source.type === "base64") {
        updates.push({
          sessionUpdate: "user_message_chunk",
          content: { type: "image", mimeType: block.source.media_type, data: block.source.data },
        });
      }
    }
    return [...updates, ...this.resultUpdates(content)];
  }

  private deltaUpdates(event: Record<string, unknown>): SessionUpdate[] {
    if (event.type !== "content_block_delta") return [];
    const delta = event.delta as Record<string, unknown> | undefined;
    if (delta?.type === "text_delta" && typeof delta.text === "string") {
      this.streamed = true;
      return [chunk("agent_message_chunk", delta.text)];
    }
    if (delta?.type === "thinking_delta" && typeof delta.thinking === "string") {
      this.streamed = true;
      return [chunk("agent_thought_chunk", delta.thinking)];
    }
    return [];
  }

  /** Tool calls always; text and thinking only when they were not streamed. */
  private assistantUpdates(content: ContentBlock[], withText: boolean): SessionUpdate[] {
    const updates: SessionUpdate[] = [];
    for (const block of content) {
      if (block.type === "text" && withText && block.text !== "") {
        updates.push(chunk("agent_message_chunk", block.text));
      } else if (block.type === "thinking" && withText && block.thinking !== "") {
        updates.push(chunk("agent_thought_chunk", block.thinking));
      } else if (block.type === "tool_use") {
        this.toolNames.set(block.id, block.name);
        const view = toolCallView(block.name, block.input);
        updates.push({
          sessionUpdate: "tool_call",
          toolCallId: block.id,
          name: block.name,
          status: "pending",
          rawInput: block.input,
          ...view,
        });
        const plan = block.name === "TodoWrite" ? planOfTodos(block.input) : undefined;
        if (plan !== undefined) updates.push({ sessionUpdate: "plan", entries: plan });
      }
    }
    return updates;
  }

  /** The results of SDK messages (`is_error`) and of stored ones (`isError`), spelled either way. */
  private resultUpdates(content: ReadonlyArray<ContentBlock | SDKContentBlock>): SessionUpdate[] {
    const updates: SessionUpdate[] = [];
    for (const block of content) {
      if (block.type !== "tool_result") continue;
      const failed =
        ("isError" in block && block.isError === true) || ("is_error" in block && block.is_error === true);
      const name = this.toolNames.get(block.tool_use_id);
      this.toolNames.delete(block.tool_use_id);
      this.running.delete(block.tool_use_id);
      const output = resultText(block.content);
      // An edit's diff stays the call's content; other tools show what they returned.
      const shown: ToolCallContent[] =
        name === "Write" || name === "Edit" || output === ""
          ? []
          : [{ type: "content", content: { type: "text", text: output } }];
      updates.push({
        sessionUpdate: "tool_call_update",
        toolCallId: block.tool_use_id,
        status: failed ? "failed" : "completed",
        rawOutput: output,
        ...(shown.length > 0 || failed ? { content: shown.length > 0 ? shown : [textContent(output)] } : {}),
      });
    }
    return updates;
  }
}

function chunk(
  kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk",
  text: string,
): SessionUpdate {
  return { sessionUpdate: kind, content: { type: "text", text } };
}

function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (part && typeof part === "object" && part.type === "text" ? String(part.text) : ""))
    .join("");
}
