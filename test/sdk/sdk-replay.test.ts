/**
 * The options Zed's Claude adapter (`claude-agent-acp` 0.23.1, `createSession`) gives the SDK, on the
 * SDK these tests pin: streaming input, `extraArgs: {"replay-user-messages": ""}`, partial messages,
 * canUseTool, a PostToolUse hook, `CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1`. Each prompt comes back as a
 * replay with its uuid once its turn starts, before the turn's answer; a prompt sent mid-turn comes back
 * after the earlier turn's result, and `idle` follows the last result.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, useCliFixture } from "../cli/helpers.js";
import { reply } from "../support/mock-provider.js";
import { type ClaudeSdk, loadClaudeSdk, type SdkMessage } from "./claude-sdk.js";
import { collect, userStream } from "./helpers.js";

const fx = useCliFixture("goat-sdk-replay");
let sdk: ClaudeSdk;
beforeAll(async () => {
  sdk = await loadClaudeSdk();
}, 300_000);

/** The adapter's options, as its createSession builds them for a new session. */
function adapterOptions(canUseTool: (...args: any[]) => Promise<any>, postToolUse: () => void) {
  return {
    systemPrompt: { type: "preset", preset: "claude_code" },
    settingSources: ["user", "project", "local"],
    env: { ...fx.env, CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS: "1" },
    cwd: fx.work.path,
    includePartialMessages: true,
    mcpServers: {},
    allowDangerouslySkipPermissions: false,
    permissionMode: "default",
    canUseTool,
    executable: process.execPath,
    pathToClaudeCodeExecutable: CLI,
    extraArgs: { "replay-user-messages": "" },
    disallowedTools: ["AskUserQuestion"],
    tools: { type: "preset", preset: "claude_code" },
    hooks: {
      PostToolUse: [
        {
          hooks: [
            async () => {
              postToolUse();
              return { continue: true };
            },
          ],
        },
      ],
    },
    additionalDirectories: [],
    sessionId: randomUUID(),
  };
}

const isReplay = (m: SdkMessage) => m.type === "user" && m.isReplay === true;
const isIdle = (m: SdkMessage) =>
  m.type === "system" && m.subtype === "session_state_changed" && m.state === "idle";

async function waitUntil(done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("the Claude adapter's options on the pinned SDK", () => {
  it("replays each prompt with its uuid before its turn's answer; a mid-turn prompt after the earlier result", async () => {
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", id: "toolu_r1", input: { command: "sleep 0.5; echo ran" } }]),
      reply.text("first done"),
      reply.text("second done"),
    );
    const asked: string[] = [];
    let hookRuns = 0;
    const canUseTool = async (toolName: string, input: Record<string, unknown>) => {
      asked.push(toolName);
      return { behavior: "allow", updatedInput: input };
    };
    const input = userStream();
    const q = sdk.query({
      prompt: input.stream,
      options: adapterOptions(canUseTool, () => hookRuns++),
    });
    const seen: SdkMessage[] = [];
    const done = collect(q, (m) => seen.push(m));
    const [first, second] = [randomUUID(), randomUUID()];
    input.push("run the tool", first);
    await waitUntil(() => seen.some(isReplay));
    // The adapter sends its next prompt while the turn runs: it is queued, and so is its echo.
    input.push("and then this", second);
    await waitUntil(
      () => seen.filter(isIdle).length > 0 && seen.filter((m) => m.type === "result").length === 2,
    );
    input.end();
    const run = await done;
    expect(run.error).toBeUndefined();

    const replays = seen.filter(isReplay);
    expect(replays.map((m) => [m.uuid, m.message.content])).toEqual([
      [first, "run the tool"],
      [second, "and then this"],
    ]);
    const at = (pred: (m: SdkMessage) => boolean, from = 0) => seen.findIndex((m, i) => i >= from && pred(m));
    const results = seen.flatMap((m, i) => (m.type === "result" ? [i] : []));
    const firstAnswer = at((m) => m.type === "stream_event" || m.type === "assistant");
    expect(seen.indexOf(replays[0])).toBeLessThan(firstAnswer);
    expect(seen.indexOf(replays[1])).toBeGreaterThan(results[0]);
    expect(seen.indexOf(replays[1])).toBeLessThan(at((m) => m.type === "stream_event", results[0]));
    expect(at(isIdle)).toBeGreaterThan(results[1]);
    expect(asked).toEqual(["Bash"]);
    expect(hookRuns).toBe(1);
  }, 60_000);
});
