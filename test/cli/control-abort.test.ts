/**
 * The end of stdin under an Agent SDK. A host with callbacks that reads the session state (as the
 * TypeScript SDK does) closes stdin mid-turn only when its consumer gave up: Goat stops at once (the
 * running tool's process killed, its call answered, the transcript written) and exits, before the
 * SIGTERM the SDK sends two seconds later. A host without callbacks closes stdin after its last
 * message: the turn runs to its end, as with Claude Code.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import {
  control,
  type Host,
  isResult,
  responseTo,
  startHost as startHostIn,
  user,
  waitUntil,
} from "./control-host.js";
import { useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-ctl-abort");
const sessions: Host[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.child.kill("SIGKILL");
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every line of every transcript under GOAT_HOME. */
function transcriptText(home: string): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith(".jsonl")) out.push(readFileSync(join(dir, e.name), "utf8"));
    }
  };
  walk(home);
  return out.join("\n");
}

describe("stdin closing under an Agent SDK", () => {
  it("with callbacks and session state: the running tool is killed, its call answered, the session ends at once", async () => {
    fx.env.CLAUDE_CODE_SDK_READS_SESSION_STATE = "1";
    fx.mock.enqueue(
      reply.toolCalls([
        { name: "Bash", id: "toolu_slow", input: { command: "echo $$ > pid.txt; sleep 30; touch late.txt" } },
      ]),
    );
    const host = startHostIn(fx, sessions, ["--permission-prompt-tool", "stdio", "--allowedTools", "Bash"]);
    host.send(control("init", { subtype: "initialize", hooks: {} }));
    await host.waitFor(responseTo("init"));
    host.send(user("run the slow thing"));
    const running = await host.waitFor((m) => m.subtype === "session_state_changed");
    expect(running).toMatchObject({ state: "running", sdk_host_only: true });
    const pidFile = join(fx.work.path, "pid.txt");
    await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(true);

    host.child.stdin.end();
    // The tool's process is gone and the turn's result written well before the SDK's SIGTERM (2 s
    // after it closes stdin); exiting itself may take longer on a loaded machine.
    // No signal is sent here: without the stop at stdin's end the command would run its 30 s. (About
    // 250 ms on an idle machine; the SDK's SIGTERM would come after 2 s.)
    await waitUntil(() => !alive(pid) && host.lines.some(isResult), 10_000);
    const { code } = await host.end();
    expect(code).not.toBeNull();
    expect(alive(pid)).toBe(false);
    expect(existsSync(join(fx.work.path, "late.txt"))).toBe(false);
    const answered = host.lines
      .filter((m) => m.type === "user")
      .flatMap((m) => m.message.content)
      .find((b: any) => b.type === "tool_result" && b.tool_use_id === "toolu_slow");
    expect(answered.is_error).toBe(true);
    expect(host.lines.filter(isResult)).toHaveLength(1);
    expect(host.lines.at(-1)).toMatchObject({ subtype: "session_state_changed", state: "idle" });
    expect(transcriptText(fx.home.path)).toContain("toolu_slow");
  });

  it("without callbacks: stdin's end finishes the running turn, as with Claude Code", async () => {
    fx.env.CLAUDE_CODE_SDK_READS_SESSION_STATE = "1";
    fx.mock.enqueue(reply.text("y".repeat(120), { delayMs: 50, chunkSize: 10 }));
    const host = startHostIn(fx, sessions);
    host.send(user("write some"));
    await waitUntil(() => fx.mock.requests.length === 1);
    const { code } = await host.end();
    expect(code).toBe(0);
    const result = host.lines.find(isResult);
    expect(result).toMatchObject({ subtype: "success", result: "y".repeat(120) });
    const states = host.lines.filter((m) => m.subtype === "session_state_changed").map((m) => m.state);
    expect(states).toEqual(["running", "idle"]);
  });

  it("queued turns run back to back with one idle at the end", async () => {
    fx.env.CLAUDE_CODE_SDK_READS_SESSION_STATE = "1";
    fx.mock.enqueue(reply.text("first"), reply.text("second"));
    const host = startHostIn(fx, sessions);
    host.send(user("one"));
    host.send(user("two"));
    await host.waitFor(isResult, 2);
    expect((await host.end()).code).toBe(0);
    const kinds = host.lines
      .filter((m) => m.type === "result" || m.subtype === "session_state_changed")
      .map((m) => (m.type === "result" ? m.result : m.state));
    expect(kinds).toEqual(["running", "first", "second", "idle"]);
  });
});
