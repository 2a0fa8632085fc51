/**
 * The LLM compactor against the mock provider over real HTTP: what the summary request carries (the
 * older messages as a transcript, the structured prompt, manual instructions, an earlier summary),
 * what comes back (summary first, the tail's own objects after it), and how it fails.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createLlmCompactor } from "../../src/compaction/llm-compactor.js";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/compaction/prompt.js";
import { createProviderRegistry } from "../../src/llm/resolve.js";
import type { AgentMessage } from "../../src/loop/events.js";
import type { Compactor } from "../../src/loop/loop-config.js";
import { createModelCaller } from "../../src/loop/model-caller.js";
import { summaryText } from "../../src/session/resume.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { filler } from "./histories.js";

const MODEL = "anthropic/claude-sonnet-4-5";
let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
  expect(mock.pending()).toBe(0);
});

function compactor(options: Partial<Parameters<typeof createLlmCompactor>[0]> = {}): Compactor {
  const registry = createProviderRegistry([
    { type: "anthropic", baseURL: mock.anthropicBaseURL, apiKey: "test-key" },
  ]);
  const callModel = createModelCaller(registry, { retry: { baseDelayMs: 5, maxDelayMs: 20, maxRetries: 1 } });
  return createLlmCompactor({ callModel, ...options });
}

const run = (
  c: Compactor,
  history: AgentMessage[],
  extra: { instructions?: string; trigger?: "auto" | "manual" } = {},
) =>
  c(history, {
    trigger: extra.trigger ?? "auto",
    signal: new AbortController().signal,
    model: MODEL,
    instructions: extra.instructions,
  });

/** The text of the summary request's one user message. */
function promptOf(index: number): string {
  const body = mock.requests[index].body;
  expect(body.messages).toHaveLength(1);
  const content = body.messages[0].content;
  return typeof content === "string" ? content : content.map((b: { text: string }) => b.text).join("");
}

/** A session that read a file, ran a failing command, fixed it, then got a new request. */
function workSession(): AgentMessage[] {
  return [
    {
      role: "user",
      content: "Please make the parser in src/parse.ts accept trailing commas. Never touch package.json.",
    },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Reading the parser first." },
        { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "src/parse.ts" } },
      ],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: `export function parse() {}\n${filler(2000)}`,
        },
      ],
    },
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_2", name: "Bash", input: { command: "npm test" } }],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_2",
          content: "FAIL parse.test.ts: unexpected ','",
          isError: true,
        },
      ],
    },
    { role: "assistant", content: [{ type: "text", text: "Fixed the comma handling; tests pass." }] },
    { role: "user", content: "LATEST-REQUEST: now add a test for nested arrays" },
    { role: "assistant", content: [{ type: "text", text: "LATEST-ANSWER: adding it" }] },
  ];
}

describe("createLlmCompactor", () => {
  it("sends the older messages as a transcript under the structured prompt and keeps the tail verbatim", async () => {
    mock.enqueue(reply.text("## Goal\nTrailing commas in the parser."));
    const history = workSession();
    // The last request and its answer are about 18 tokens; one more message would pass 20.
    const outcome = await run(compactor({ keepRecentTokens: 20 }), history);

    expect(mock.requests).toHaveLength(1);
    const body = mock.requests[0].body;
    expect(JSON.stringify(body.system)).toContain("handoff summaries");
    expect(body.model).toBe("claude-sonnet-4-5");
    expect(body.max_tokens).toBe(8192);
    expect(body.tools ?? []).toEqual([]);
    const prompt = promptOf(0);
    expect(prompt).toContain("[User]: Please make the parser in src/parse.ts accept trailing commas");
    expect(prompt).toContain('[Tool call Read toolu_1]: {"file_path":"src/parse.ts"}');
    expect(prompt).toContain("[Tool result Read toolu_1]: export function parse() {}");
    expect(prompt).toContain("[Tool result Bash toolu_2 (error)]: FAIL parse.test.ts");
    for (const section of [
      "## Goal",
      "## User instructions",
      "## Key decisions",
      "## Progress and current state",
      "## Files",
      "## Errors and fixes",
      "## Next steps",
    ])
      expect(prompt).toContain(section);
    expect(prompt).not.toContain("LATEST-REQUEST");
    expect(prompt).not.toContain("Additional instructions");

    expect(outcome.summary).toBe("## Goal\nTrailing commas in the parser.");
    expect(outcome.messages[0]).toMatchObject({
      role: "custom",
      customType: "compaction_summary",
      content: outcome.summary,
    });
    expect(outcome.messages).toHaveLength(3);
    expect(outcome.messages[1]).toBe(history[6]);
    expect(outcome.messages[2]).toBe(history[7]);
    expect(outcome.preTokens).toBeGreaterThan(outcome.postTokens);
    expect((outcome.messages[0] as { details: unknown }).details).toEqual({
      trigger: "auto",
      summarizedMessages: 6,
      keptMessages: 2,
      shrunkTail: false,
    });
  });

  it("cuts a very long tool output in the transcript, keeping its start and its end", async () => {
    mock.enqueue(reply.text("summary"));
    const huge = `HEAD-MARK ${filler(60_000)} TAIL-MARK`;
    const history: AgentMessage[] = [
      { role: "user", content: "read the log" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "t", name: "Read", input: { file_path: "/log" } }],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: huge }] },
      { role: "assistant", content: [{ type: "text", text: "read it" }] },
      { role: "user", content: "next" },
    ];
    await run(compactor({ keepRecentTokens: 5 }), history);
    const prompt = promptOf(0);
    expect(prompt).toContain("HEAD-MARK");
    expect(prompt).toContain("TAIL-MARK");
    expect(prompt).toMatch(/\[… \d+ characters omitted …\]/);
    expect(prompt.length).toBeLessThan(10_000);
  });

  it("folds an earlier summary into the new one (rolling summaries)", async () => {
    mock.enqueue(reply.text("merged summary"));
    const history: AgentMessage[] = [
      {
        role: "custom",
        customType: "compaction_summary",
        content: "EARLIER-SUMMARY: the user wants a CSV exporter",
      },
      { role: "user", content: "also support TSV" },
      { role: "assistant", content: [{ type: "text", text: "TSV added" }] },
      { role: "user", content: "thanks, now docs" },
    ];
    const outcome = await run(compactor({ keepRecentTokens: 5 }), history);
    const prompt = promptOf(0);
    expect(prompt).toContain("[Earlier summary]:\nEARLIER-SUMMARY: the user wants a CSV exporter");
    expect(prompt.indexOf("EARLIER-SUMMARY")).toBeLessThan(prompt.indexOf("also support TSV"));
    expect(prompt).toContain("Merge it into your summary");
    const summaries = outcome.messages.filter((m) => m.role === "custom");
    expect(summaries).toHaveLength(1);
    expect(summaries[0].content).toBe("merged summary");
    expect(outcome.messages[1]).toBe(history[3]);
  });

  it("recognizes the summary a resumed session opens with as an earlier summary", async () => {
    mock.enqueue(reply.text("merged again"));
    const history: AgentMessage[] = [
      {
        role: "user",
        content: [
          { type: "text", text: summaryText("RESUMED-SUMMARY: exporter done") },
          { type: "text", text: "continue with the docs" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "docs written" }] },
      { role: "user", content: "publish it" },
    ];
    await run(compactor({ keepRecentTokens: 3 }), history);
    const prompt = promptOf(0);
    expect(prompt).toContain("[Earlier summary]:\nRESUMED-SUMMARY: exporter done");
    expect(prompt).toContain("[User]: continue with the docs");
    expect(prompt).toContain("Merge it into your summary");
  });

  it("appends a manual compaction's instructions to the request", async () => {
    mock.enqueue(reply.text("focused summary"));
    const outcome = await run(compactor({ keepRecentTokens: 40 }), workSession(), {
      trigger: "manual",
      instructions: "Focus on the parser's error messages",
    });
    expect(promptOf(0)).toContain(
      "Additional instructions from the user for this summary:\nFocus on the parser's error messages",
    );
    expect((outcome.messages[0] as { details: { trigger: string } }).details.trigger).toBe("manual");
  });

  it("uses the configured model, system prompt and output limit for the summary call", async () => {
    mock.enqueue(reply.text("s"));
    await run(
      compactor({
        keepRecentTokens: 40,
        model: "anthropic/claude-haiku-4-5",
        systemPrompt: "CUSTOM SYSTEM",
        maxSummaryTokens: 1234,
      }),
      workSession(),
    );
    const body = mock.requests[0].body;
    expect(body.model).toBe("claude-haiku-4-5");
    expect(JSON.stringify(body.system)).toContain("CUSTOM SYSTEM");
    expect(JSON.stringify(body.system)).not.toContain(SUMMARY_SYSTEM_PROMPT.slice(0, 30));
    expect(body.max_tokens).toBe(1234);
  });

  it("shrinks the tail when the whole history is smaller than keepRecentTokens", async () => {
    mock.enqueue(reply.text("short summary"));
    const history = workSession();
    const outcome = await run(compactor(), history); // default 20,000-token tail: everything would be kept
    expect(mock.requests).toHaveLength(1);
    const kept = outcome.messages.slice(1);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(history.length);
    for (const [i, m] of kept.entries()) expect(m).toBe(history[history.length - kept.length + i]);
    expect((outcome.messages[0] as { details: { shrunkTail: boolean } }).details.shrunkTail).toBe(true);
    expect(outcome.postTokens).toBeLessThan(outcome.preTokens);
  });

  it("refuses with a clear error, without calling the model, when there is nothing older to summarize", async () => {
    const c = compactor();
    await expect(run(c, [{ role: "user", content: filler(100_000) }])).rejects.toThrow(/Cannot compact/);
    await expect(
      run(c, [
        { role: "custom", customType: "compaction_summary", content: "s" },
        { role: "user", content: "q" },
      ]),
    ).rejects.toThrow(/no older part to summarize/);
    expect(mock.requests).toHaveLength(0);
  });

  it("retries once with a much shorter transcript when the summary request itself overflows", async () => {
    mock.enqueue(reply.overflow(), reply.text("fits now"));
    const history = workSession();
    history[2] = {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", content: filler(20_000) }],
    };
    const outcome = await run(compactor({ keepRecentTokens: 40 }), history);
    expect(mock.requests).toHaveLength(2);
    expect(promptOf(1).length).toBeLessThan(promptOf(0).length - 2000);
    expect(outcome.summary).toBe("fits now");
  });

  it("fails with the provider's reason when the summary call fails, and when the answer is empty", async () => {
    mock.enqueue(reply.overflow(), reply.overflow());
    await expect(run(compactor({ keepRecentTokens: 40 }), workSession())).rejects.toThrow(
      /summary call to anthropic\/claude-sonnet-4-5 failed: .*prompt is too long/,
    );
    mock.enqueue(reply.text("   "));
    await expect(run(compactor({ keepRecentTokens: 40 }), workSession())).rejects.toThrow(/returned no text/);
  });

  it("takes the summary out of a <summary> wrapper the model may add", async () => {
    mock.enqueue(reply.text("<analysis>thinking aloud</analysis>\n<summary>\n## Goal\nX\n</summary>"));
    const outcome = await run(compactor({ keepRecentTokens: 40 }), workSession());
    expect(outcome.summary).toBe("## Goal\nX");
  });

  it("does not call the model once the signal is aborted, and stops a summary call in flight", async () => {
    const aborted = new AbortController();
    aborted.abort();
    const c = compactor({ keepRecentTokens: 40 });
    await expect(
      c(workSession(), { trigger: "auto", signal: aborted.signal, model: MODEL }),
    ).rejects.toThrow();
    expect(mock.requests).toHaveLength(0);

    mock.enqueue(reply.text(filler(400), { delayMs: 100 }));
    const live = new AbortController();
    const pending = c(workSession(), { trigger: "auto", signal: live.signal, model: MODEL });
    await vi.waitFor(() => expect(mock.requests).toHaveLength(1), { timeout: 10_000 }); // streaming now
    live.abort();
    const started = Date.now();
    await expect(pending).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
