/**
 * `--replay-user-messages` and `CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS`, as Zed's Claude adapter
 * (`@zed-industries/claude-agent-acp`) uses them through the Agent SDK: each user message comes back on
 * stdout with its uuid and `isReplay: true` as its turn starts, and the session's `idle` reaches the
 * host. The adapter waits for both; without them its `session/prompt` never answers.
 */
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { type Host, isResult, startHost as startHostIn, user } from "./control-host.js";
import { useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-ctl-replay");
const sessions: Host[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.child.kill("SIGKILL");
});

const isReplay = (m: any) => m.type === "user" && m.isReplay === true;
const isInit = (m: any) => m.type === "system" && m.subtype === "init";
const isState = (m: any) => m.type === "system" && m.subtype === "session_state_changed";

describe("--replay-user-messages", () => {
  it("echoes each user message with its uuid after its turn's init, queued ones after the earlier result", async () => {
    fx.mock.enqueue(reply.text("one"), reply.text("two"));
    const host = startHostIn(fx, sessions, ["--replay-user-messages"]);
    // Both at once: the second waits for the first turn, and so does its echo.
    host.send({ ...user("first"), uuid: "6f1c1a52-0000-4000-8000-000000000001" });
    host.send(user("second, with no uuid"));
    await host.waitFor(isResult, 2);
    const { code } = await host.end();
    expect(code).toBe(0);

    const kinds = host.lines
      .filter((m) => isInit(m) || isReplay(m) || m.type === "assistant" || isResult(m))
      .map((m) => (isReplay(m) ? "replay" : isInit(m) ? "init" : m.type));
    expect(kinds).toEqual(["init", "replay", "assistant", "result", "init", "replay", "assistant", "result"]);
    const replays = host.lines.filter(isReplay);
    const results = host.lines.filter(isResult);
    const init = host.lines.find(isInit);
    expect(replays[0]).toMatchObject({
      type: "user",
      message: { role: "user", content: "first" },
      parent_tool_use_id: null,
      uuid: "6f1c1a52-0000-4000-8000-000000000001",
      session_id: init.session_id,
      isReplay: true,
    });
    // A message the host sent without a uuid gets one, the same its result names.
    expect(replays[1].message.content).toBe("second, with no uuid");
    expect(replays[1].uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(results.map((r) => r.user_message_uuid)).toEqual([replays[0].uuid, replays[1].uuid]);
  });

  it("echoes nothing without the flag", async () => {
    fx.mock.enqueue(reply.text("one"));
    const host = startHostIn(fx, sessions);
    host.send({ ...user("first"), uuid: "6f1c1a52-0000-4000-8000-000000000002" });
    await host.waitFor(isResult);
    await host.end();
    expect(host.lines.filter((m) => m.type === "user")).toEqual([]);
  });
});

describe("CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS=1", () => {
  it("reports running and idle to the host itself (no sdk_host_only, which the SDK drops)", async () => {
    fx.env.CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS = "1";
    fx.mock.enqueue(reply.text("one"));
    const host = startHostIn(fx, sessions, ["--replay-user-messages"]);
    host.send(user("first"));
    await host.waitFor((m) => isState(m) && m.state === "idle");
    await host.end();
    const states = host.lines.filter(isState);
    expect(states.map((s) => s.state)).toEqual(["running", "idle"]);
    for (const s of states) expect(s).not.toHaveProperty("sdk_host_only");
    // idle comes last: after the result the adapter would otherwise take for another prompt's.
    expect(host.lines.indexOf(states[1])).toBeGreaterThan(host.lines.findIndex(isResult));
  });
});
