/**
 * Histories for compaction tests: small hand-written ones, a seeded generator of agentic histories
 * with (parallel) tool calls, and the provider's pairing rule as a checker.
 */

import type { ContentBlock, Message } from "../../src/llm/types.js";
import type { AgentMessage } from "../../src/loop/events.js";

/** A deterministic PRNG (mulberry32), so a failing generated history can be reproduced from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Text of roughly `chars` characters. */
export function filler(chars: number, word = "lorem"): string {
  return `${word} `.repeat(Math.ceil(chars / (word.length + 1))).slice(0, chars);
}

/**
 * A random agentic history: user turns, each with 0–4 model rounds of 0–3 (parallel) tool calls and
 * their results, sometimes an earlier summary first, sometimes text beside the results.
 */
export function generateHistory(seed: number): AgentMessage[] {
  const rand = prng(seed);
  const pick = (n: number) => Math.floor(rand() * n);
  const out: AgentMessage[] = [];
  let ids = 0;
  if (rand() < 0.25)
    out.push({ role: "custom", customType: "compaction_summary", content: filler(200 + pick(800)) });
  const turns = 1 + pick(5);
  for (let t = 0; t < turns; t++) {
    out.push({ role: "user", content: `turn ${t}: ${filler(pick(600))}` });
    const rounds = pick(5);
    for (let r = 0; r < rounds; r++) {
      const calls = pick(4);
      const content: ContentBlock[] = [];
      if (rand() < 0.6) content.push({ type: "text", text: filler(pick(300), "think") });
      for (let c = 0; c < calls; c++)
        content.push({ type: "tool_use", id: `call_${ids++}`, name: "Read", input: { file_path: `/f${c}` } });
      if (content.length === 0) content.push({ type: "text", text: "ok" });
      out.push({ role: "assistant", content });
      if (calls === 0) continue;
      const results: ContentBlock[] = content
        .filter((b) => b.type === "tool_use")
        .map((b) => ({
          type: "tool_result",
          tool_use_id: (b as { id: string }).id,
          content: filler(pick(3000), "data"),
        }));
      if (rand() < 0.2) results.push({ type: "text", text: "<system-reminder>note</system-reminder>" });
      out.push({ role: "user", content: results });
    }
    out.push({ role: "assistant", content: [{ type: "text", text: `answer ${t} ${filler(pick(400))}` }] });
  }
  return out;
}

/** Every tool_use id in `messages` and the index of the message holding it. */
function toolUseIndexes(messages: AgentMessage[]): Map<string, number> {
  const map = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.role === "assistant") for (const b of m.content) if (b.type === "tool_use") map.set(b.id, i);
  });
  return map;
}

/** Tool-result ids in `part` whose tool_use is not in `part` (a split pair); empty when none. */
export function orphanResults(part: AgentMessage[]): string[] {
  const uses = toolUseIndexes(part);
  const orphans: string[] = [];
  for (const m of part) {
    if (m.role !== "user" || typeof m.content === "string") continue;
    for (const b of m.content)
      if (b.type === "tool_result" && !uses.has(b.tool_use_id)) orphans.push(b.tool_use_id);
  }
  return orphans;
}

/**
 * The provider's rule on what is sent: each tool_result answers a tool_use of the assistant message
 * right before it, and each tool_use (except in the last message) is answered by the next message.
 * Returns the problems found.
 */
export function pairingProblems(messages: Message[]): string[] {
  const problems: string[] = [];
  messages.forEach((m, i) => {
    const prev = messages[i - 1];
    const next = messages[i + 1];
    if (m.role === "user" && typeof m.content !== "string") {
      const uses = new Set(
        prev?.role === "assistant" ? prev.content.filter((b) => b.type === "tool_use").map((b) => b.id) : [],
      );
      for (const b of m.content)
        if (b.type === "tool_result" && !uses.has(b.tool_use_id))
          problems.push(`message ${i}: result ${b.tool_use_id} without its call right before`);
    }
    if (m.role === "assistant" && next) {
      const answered = new Set(
        next.role === "user" && typeof next.content !== "string"
          ? next.content.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id)
          : [],
      );
      for (const b of m.content)
        if (b.type === "tool_use" && !answered.has(b.id))
          problems.push(`message ${i}: call ${b.id} unanswered`);
    }
  });
  return problems;
}
