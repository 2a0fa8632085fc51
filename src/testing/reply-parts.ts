/**
 * What every wire's rendering of a scripted reply reads of it (`mock-wire*.ts`): its text in pieces,
 * its calls' arguments and ids, its stop reason and token counts, defaults filled in.
 */
import type { MessageReply, MockBlock, MockStopReason } from "./mock-replies.js";

/** `text` in deltas of at most `size` characters. */
export function pieces(text: string, size: number): string[] {
  if (text === "") return [];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** A scripted call's arguments text. */
export function argumentsOf(block: Extract<MockBlock, { type: "tool_use" }>): string {
  return block.rawArguments ?? JSON.stringify(block.input ?? {});
}

/** A scripted call's id, or a made-up one. */
export function toolId(block: Extract<MockBlock, { type: "tool_use" }>, i: number, prefix: string): string {
  return block.id ?? `${prefix}_${String(i).padStart(2, "0")}`;
}

/** A reply's stop reason. */
export function stopOf(r: MessageReply): MockStopReason {
  return r.stopReason ?? (r.content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
}

/** A reply's token counts, defaults filled in. */
export function usageOf(r: MessageReply): {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning?: number;
} {
  return { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, ...r.usage };
}
