/**
 * `Query.compact()` and the loop's own compaction take one code path (`loop/compact-session.ts`), so a
 * host that asks for a compaction sees exactly what an automatic one shows: PreCompact and PostCompact
 * hooks, one boundary in the transcript (a resume loads the summary and the kept tail), one
 * `compact_boundary` SDK message, and the next request starting from the summary. Only the trigger
 * differs. Each session runs through `query()` against the mock provider, transcript in memory.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { HookInput } from "../../src/hooks/types.js";
import { query, type SDKUserMessageInput } from "../../src/sdk/query.js";
import type { SDKMessage } from "../../src/sdk/sdk-messages.js";
import { createInMemorySessionStore } from "../../src/session/memory-store.js";
import type { SessionStore } from "../../src/session/types.js";
import { mockOptions } from "../runtime/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.requests.length = 0;
});

const FIRST_PROMPT = `q1 ${"remember this long question ".repeat(400)}`;

/** What a compaction left behind, in each place a host can see it. */
interface Trace {
  hooks: string[];
  postCompactSummary: unknown;
  boundaryMessages: Array<{ trigger: string; preAboveZero: boolean }>;
  transcriptBoundaries: Array<{ trigger: string; summary: string }>;
  nextRequestStartsWithSummary: boolean;
  nextRequestHasFirstPrompt: boolean;
  results: unknown[];
}

/**
 * Two prompts. `auto`: the provider answers the second with "prompt is too long", so the loop compacts
 * and retries. `manual`: the host calls `compact()` between the two runs. Either way the summary call
 * answers "<summary>the gist</summary>".
 */
async function compactedSession(mode: "auto" | "manual"): Promise<Trace> {
  mock.requests.length = 0;
  if (mode === "auto") {
    mock.enqueue(
      reply.text("a1"),
      reply.overflow(),
      reply.text("<summary>the gist</summary>"),
      reply.text("a2"),
    );
  } else {
    mock.enqueue(reply.text("a1"), reply.text("<summary>the gist</summary>"), reply.text("a2"));
  }
  const hooks: string[] = [];
  let postCompactSummary: unknown;
  const record = async (input: HookInput) => {
    hooks.push(`${input.hook_event_name}:${(input as { trigger?: string }).trigger}`);
    if (input.hook_event_name === "PostCompact") postCompactSummary = input.compact_summary;
    return {};
  };
  const store: SessionStore = createInMemorySessionStore();
  let firstAnswered!: () => void;
  const firstDone = new Promise<void>((resolve) => {
    firstAnswered = resolve;
  });
  let compacted!: () => void;
  const mayContinue = new Promise<void>((resolve) => {
    compacted = resolve;
  });
  async function* prompts(): AsyncGenerator<SDKUserMessageInput> {
    yield { type: "user", message: { role: "user", content: FIRST_PROMPT } };
    await firstDone;
    if (mode === "manual") await mayContinue;
    yield { type: "user", message: { role: "user", content: "q2" } };
  }
  const q = query({
    prompt: prompts(),
    options: mockOptions(mock, "anthropic", {
      sessionStore: store,
      hooks: { PreCompact: [record], PostCompact: [record] },
    }),
  });
  const seen: SDKMessage[] = [];
  for await (const message of q) {
    seen.push(message);
    if (message.type === "result" && seen.filter((m) => m.type === "result").length === 1) {
      firstAnswered();
      if (mode === "manual") {
        await q.compact();
        compacted();
      }
    }
  }
  const entries = (await store.load(q.sessionId)) ?? [];
  const next = JSON.stringify(mock.requests.at(-1)?.body.messages ?? []);
  return {
    hooks,
    postCompactSummary,
    boundaryMessages: seen.flatMap((m) =>
      m.type === "system" && m.subtype === "compact_boundary"
        ? [{ trigger: m.compact_metadata.trigger, preAboveZero: m.compact_metadata.pre_tokens > 0 }]
        : [],
    ),
    transcriptBoundaries: entries.flatMap((e) =>
      e.type === "compact_boundary" ? [{ trigger: e.trigger, summary: e.summary }] : [],
    ),
    nextRequestStartsWithSummary:
      next.indexOf("the gist") >= 0 && next.indexOf("the gist") < next.indexOf("q2"),
    nextRequestHasFirstPrompt: next.includes("remember this long question"),
    results: seen.filter((m) => m.type === "result").map((m) => (m as { result?: string }).result),
  };
}

/** The trace with the trigger taken out, for comparing the two paths. */
function withoutTrigger(trace: Trace, trigger: string): unknown {
  return JSON.parse(
    JSON.stringify(trace).replaceAll(`"${trigger}"`, '"T"').replaceAll(`:${trigger}"`, ':T"'),
  );
}

describe("manual compact() and automatic compaction", () => {
  it("leave the same hooks, transcript boundary, SDK message and next request; only the trigger differs", async () => {
    const auto = await compactedSession("auto");
    const manual = await compactedSession("manual");

    expect(auto).toEqual({
      hooks: ["PreCompact:auto", "PostCompact:auto"],
      postCompactSummary: "the gist",
      boundaryMessages: [{ trigger: "auto", preAboveZero: true }],
      transcriptBoundaries: [{ trigger: "auto", summary: "the gist" }],
      nextRequestStartsWithSummary: true,
      nextRequestHasFirstPrompt: false,
      results: ["a1", "a2"],
    });
    expect(manual.hooks).toEqual(["PreCompact:manual", "PostCompact:manual"]);
    expect(withoutTrigger(manual, "manual")).toEqual(withoutTrigger(auto, "auto"));
  });
});
