/**
 * Where compaction cuts a history: tails of about the asked size, never a tool_use separated from its
 * tool_result (checked over hundreds of generated histories), the tail shrunk when nothing older is
 * left to summarize, and a clear error when no cut can help.
 */
import { describe, expect, it } from "vitest";
import { findCutPoint, planCompaction, validCutPoints } from "../../src/compaction/cut-point.js";
import { defaultConvertToLlm, estimateMessageTokens } from "../../src/loop/context.js";
import type { AgentMessage } from "../../src/loop/events.js";
import { filler, generateHistory, orphanResults, pairingProblems, prng } from "./histories.js";

const est = estimateMessageTokens;
/** The tail's size as findCutPoint counts it: message by message. */
const tailTokens = (messages: AgentMessage[], from: number) =>
  messages.slice(from).reduce((sum, m) => sum + est([m]), 0);

describe("findCutPoint", () => {
  const history: AgentMessage[] = [
    { role: "user", content: filler(400) }, // 100 tokens
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "/a" } }],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: filler(800) }] }, // 200
    { role: "assistant", content: [{ type: "text", text: filler(40) }] }, // 10
    { role: "user", content: filler(80) }, // 20
    { role: "assistant", content: [{ type: "text", text: filler(40) }] }, // 10
  ];

  it("keeps the longest tail that fits the budget, starting at a message that opens a turn or a round", () => {
    expect(findCutPoint(history, 45, est)).toBe(3);
    expect(tailTokens(history, 3)).toBeLessThanOrEqual(45);
  });

  it("never starts the tail at a tool-result message, even when the budget ends there", () => {
    // The results alone would fit 250 tokens with what follows, but they must stay with their call.
    const cut = findCutPoint(history, 250, est);
    expect(cut).not.toBe(2);
    expect(cut).toBe(1);
    expect(orphanResults(history.slice(cut))).toEqual([]);
  });

  it("returns 0 when the whole history fits", () => {
    expect(findCutPoint(history, 10_000, est)).toBe(0);
  });

  it("takes the smallest valid tail when even that is over the budget", () => {
    expect(findCutPoint(history, 1, est)).toBe(5);
  });

  it("treats a cut inside a tool call's span as invalid even when a note sits between call and result", () => {
    const odd: AgentMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "x", name: "Bash", input: {} }] },
      { role: "custom", customType: "hook_note", content: "note" },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "x", content: "out" }] },
    ];
    expect(validCutPoints(odd)).toEqual([true, true, false, false]);
  });
});

describe("planCompaction", () => {
  it("summarizes everything before the tail and keeps the tail's own objects", () => {
    const history: AgentMessage[] = [
      { role: "user", content: filler(2000) },
      { role: "assistant", content: [{ type: "text", text: filler(2000) }] },
      { role: "user", content: "latest question" },
      { role: "assistant", content: [{ type: "text", text: "latest answer" }] },
    ];
    const plan = planCompaction(history, 50, est);
    expect(plan.summarize).toEqual(history.slice(0, 2));
    expect(plan.kept[0]).toBe(history[2]);
    expect(plan.kept[1]).toBe(history[3]);
    expect(plan.shrunk).toBe(false);
  });

  it("shrinks the tail when the whole history is smaller than the budget", () => {
    const history: AgentMessage[] = [
      { role: "user", content: filler(400) },
      { role: "assistant", content: [{ type: "text", text: filler(400) }] },
      { role: "user", content: filler(100) },
      { role: "assistant", content: [{ type: "text", text: filler(100) }] },
    ];
    const plan = planCompaction(history, 20_000, est);
    expect(plan.shrunk).toBe(true);
    expect(plan.summarize.length).toBeGreaterThan(0);
    expect(plan.kept.length).toBeGreaterThan(0);
    expect(est(plan.kept)).toBeLessThanOrEqual(est(history) / 2);
  });

  it("cuts inside one long agentic turn when that turn is the whole history", () => {
    const history: AgentMessage[] = [{ role: "user", content: "fix the build" }];
    for (let i = 0; i < 4; i++) {
      history.push({
        role: "assistant",
        content: [{ type: "tool_use", id: `c${i}`, name: "Bash", input: {} }],
      });
      history.push({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: `c${i}`, content: filler(1000) }],
      });
    }
    const plan = planCompaction(history, 20_000, est);
    expect(plan.summarize[0]).toBe(history[0]);
    expect(plan.kept[0].role).toBe("assistant");
    expect(orphanResults(plan.kept)).toEqual([]);
  });

  it("throws a clear error when nothing older than the newest message exists", () => {
    expect(() => planCompaction([{ role: "user", content: filler(90_000) }], 20_000, est)).toThrow(
      /no older part to summarize/,
    );
  });

  it("throws when only an earlier summary precedes the smallest tail (no progress possible)", () => {
    const history: AgentMessage[] = [
      { role: "custom", customType: "compaction_summary", content: "earlier" },
      { role: "user", content: "q" },
      { role: "assistant", content: [{ type: "tool_use", id: "a", name: "Read", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "r" }] },
    ];
    // Cuts at 1 (only the summary before it) and 2 (the prompt before it) are valid: 2 is progress.
    expect(planCompaction(history, 0, est).summarize).toHaveLength(2);
    expect(() => planCompaction(history.slice(0, 2), 0, est)).toThrow(/Cannot compact/);
  });
});

describe("pairs are never split (generated histories)", () => {
  it("holds for 400 histories at several budgets, and what is sent after compaction is valid", () => {
    let planned = 0;
    let refused = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const history = generateHistory(seed);
      const rand = prng(seed * 7919);
      const total = est(history);
      for (const keep of [0, 1, Math.floor(rand() * total), Math.floor(total / 3), total + 10]) {
        const context = `seed ${seed}, keep ${keep}`;
        const cut = findCutPoint(history, keep, est);
        expect(orphanResults(history.slice(cut)), context).toEqual([]);
        const valid = validCutPoints(history);
        if (cut > 0 && tailTokens(history, cut) > keep) {
          // Over budget only when no later valid cut exists.
          expect(valid.slice(cut + 1).some(Boolean), context).toBe(false);
        } else {
          // Within budget: no earlier valid cut would also fit.
          for (let j = 0; j < cut; j++)
            if (valid[j]) expect(tailTokens(history, j), context).toBeGreaterThan(keep);
        }

        let plan: ReturnType<typeof planCompaction>;
        try {
          plan = planCompaction(history, keep, est);
        } catch {
          refused++;
          // Refusing is right only when no valid cut has conversation before it.
          const possible = valid.some((ok, j) => ok && history.slice(0, j).some((m) => m.role !== "custom"));
          expect(possible, context).toBe(false);
          continue;
        }
        planned++;
        expect([...plan.summarize, ...plan.kept], context).toEqual(history);
        for (const [i, m] of plan.kept.entries()) expect(m).toBe(history[plan.summarize.length + i]);
        expect(orphanResults(plan.kept), context).toEqual([]);
        const sent = defaultConvertToLlm([
          { role: "custom", customType: "compaction_summary", content: "summary" },
          ...plan.kept,
        ]);
        expect(pairingProblems(sent), context).toEqual([]);
        expect(sent[0].role, context).toBe("user");
      }
    }
    expect(planned).toBeGreaterThan(1000);
    // Every generated history ends with a whole turn, so some cut always leaves something to summarize.
    expect(refused).toBe(0);
  });
});
