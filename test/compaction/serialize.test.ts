/**
 * The summary transcript: one labelled line per block, tool results named after their call, loop-only
 * notes left out, and long blocks cut in the middle so their start and end survive.
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_TRANSCRIPT_LIMITS,
  serializeForSummary,
  TIGHT_TRANSCRIPT_LIMITS,
  truncateMiddle,
} from "../../src/compaction/serialize.js";
import type { AgentMessage } from "../../src/loop/events.js";

describe("serializeForSummary", () => {
  const history: AgentMessage[] = [
    { role: "custom", customType: "compaction_summary", content: "## Goal\nold goal" },
    { role: "custom", customType: "hook_note", content: "INTERNAL-NOTE" },
    {
      role: "user",
      content: [
        { type: "text", text: "look at this screenshot" },
        { type: "image", source: { type: "url", url: "https://example.test/a.png" } },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "the button is misaligned", signature: "sig" },
        { type: "redacted_thinking", data: "SECRET-BYTES" },
        { type: "text", text: "I'll check the CSS." },
        { type: "tool_use", id: "t1", name: "Grep", input: { pattern: "button" } },
        {
          type: "tool_use",
          id: "t2",
          name: "Write",
          input: {},
          parse_error: "bad json",
          raw_input: '{"file_path": "/x',
        },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "a.css:3: .button {}" }] },
        { type: "tool_result", tool_use_id: "t2", content: "Invalid JSON arguments", isError: true },
        { type: "text", text: "<system-reminder>ctx</system-reminder>" },
      ],
    },
  ];

  it("writes each block as a labelled line, in order", () => {
    expect(serializeForSummary(history).split("\n\n")).toEqual([
      "[Earlier summary]:\n## Goal\nold goal",
      "[User]: look at this screenshot",
      "[User image]",
      "[Assistant thinking]: the button is misaligned",
      "[Assistant]: I'll check the CSS.",
      '[Tool call Grep t1]: {"pattern":"button"}',
      '[Tool call Write t2]: {"file_path": "/x',
      "[Tool result Grep t1]: a.css:3: .button {}",
      "[Tool result Write t2 (error)]: Invalid JSON arguments",
      "[User]: <system-reminder>ctx</system-reminder>",
    ]);
  });

  it("leaves out loop-only notes, redacted reasoning and (with tight limits) thinking", () => {
    const text = serializeForSummary(history, TIGHT_TRANSCRIPT_LIMITS);
    expect(text).not.toContain("INTERNAL-NOTE");
    expect(text).not.toContain("SECRET-BYTES");
    expect(text).not.toContain("misaligned");
  });

  it("cuts long tool output to the limit, keeping its head and its tail", () => {
    const long = `START ${"x".repeat(10_000)} END`;
    const text = serializeForSummary([
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "b", name: "Bash", input: { command: "make" } }],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "b", content: long }] },
    ]);
    expect(text).toContain("START");
    expect(text).toContain("END");
    expect(text.length).toBeLessThan(DEFAULT_TRANSCRIPT_LIMITS.toolResultChars + 200);
  });
});

describe("truncateMiddle", () => {
  it("returns short text unchanged and says how much of long text it left out", () => {
    expect(truncateMiddle("short", 10)).toBe("short");
    const cut = truncateMiddle("abcdefghijklmnopqrstuvwxyz", 9);
    expect(cut).toBe("abcdef\n[… 17 characters omitted …]\nxyz");
  });
});
