/**
 * Files Goat creates for itself hold what sessions read, so they are the user's only: folders 0700 and
 * files 0600 whatever the umask (a loose 002 here, as many distributions give users), temp folders made
 * by `mkdtemp` rather than a fixed name under the shared /tmp, and a folder of the store that already
 * exists with a looser mode is named in one warning per process.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rememberTrustedFolder } from "../../src/cli/trust/store.js";
import { createDebugLog } from "../../src/runtime/debug-log.js";
import { query } from "../../src/sdk/query.js";
import { projectKey } from "../../src/session/paths.js";
import { bashTool } from "../../src/tools/bash.js";
import { runTool } from "../../src/tools/define-tool.js";
import { collect, mockOptions, tempDir } from "../runtime/helpers.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";
import { createTestSession, type TestSession } from "../tools/bash-test-context.js";

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  await mock.close();
});

let savedUmask: number;
const sessions: TestSession[] = [];
beforeEach(() => {
  savedUmask = process.umask(0o002);
  mock.requests.length = 0;
});
afterEach(async () => {
  process.umask(savedUmask);
  await Promise.all(sessions.splice(0).map((s) => s.dispose()));
});

const modeOf = (p: string) => fs.statSync(p).mode & 0o777;

/** One persisted session in `cwd` with its transcripts under `home`; its messages. */
async function runSession(cwd: string, home: string) {
  mock.enqueue(reply.text("hello"));
  return collect(
    query({
      prompt: "hi",
      options: mockOptions(mock, "anthropic", { cwd, persistSession: true, env: { GOAT_HOME: home } }),
    }),
  );
}

const warningsOf = (messages: unknown[]) =>
  messages
    .filter((m: any) => m.type === "system" && m.subtype === "informational")
    .map((m: any) => String(m.content));

describe("files Goat creates are private", () => {
  it("makes GOAT_HOME, its project folder, the transcript and the listing index the user's only", async () => {
    const root = tempDir("goat-private-");
    const home = path.join(root, "home"); // not there yet: the store makes it
    const messages = await runSession(root, home);
    const sessionId = (messages[0] as { session_id: string }).session_id;
    const folder = path.join(home, "projects", projectKey(root));
    expect([modeOf(home), modeOf(path.join(home, "projects")), modeOf(folder)]).toEqual([
      0o700, 0o700, 0o700,
    ]);
    expect(modeOf(path.join(folder, `${sessionId}.jsonl`))).toBe(0o600);
    expect(modeOf(path.join(folder, ".listing-index"))).toBe(0o600);
    expect(warningsOf(messages)).toEqual([]);
  });

  it("says once per process that an existing store folder is open to other users", async () => {
    const root = tempDir("goat-private-shared-");
    const home = path.join(root, "home");
    fs.mkdirSync(home);
    fs.chmodSync(home, 0o755);
    const first = warningsOf(await runSession(root, home));
    expect(first).toEqual([
      `${home} is open to other users (mode 755) and holds Goat's transcripts: run chmod 700 ${JSON.stringify(home)} to keep them private`,
    ]);
    // Left as the user set it, and not said again by the next session of this process.
    expect(modeOf(home)).toBe(0o755);
    expect(warningsOf(await runSession(root, home))).toEqual([]);
  });

  it("saves a long command's whole output 0600 in a folder made by mkdtemp, not a fixed name in /tmp", async () => {
    const s = createTestSession();
    sessions.push(s);
    // Another user could create the old fixed name first and read (or link away) what lands in it.
    const squatted = path.join(os.tmpdir(), `goat-${s.ctx.sessionId}`);
    fs.mkdirSync(squatted, { mode: 0o777 });
    try {
      const result = await runTool(bashTool, { command: "seq 1 20000" }, s.ctx);
      const file = (result.details as { outputFile: string }).outputFile;
      expect(path.dirname(file)).not.toBe(squatted);
      expect(path.basename(path.dirname(file))).toMatch(new RegExp(`^goat-${s.ctx.sessionId}-.{6}$`));
      expect(modeOf(path.dirname(file))).toBe(0o700);
      expect(modeOf(file)).toBe(0o600);
      expect(fs.readdirSync(squatted)).toEqual([]);
    } finally {
      fs.rmSync(squatted, { recursive: true, force: true });
    }
  });

  it("writes the debug log file 0600", async () => {
    const file = path.join(tempDir("goat-private-debug-"), "debug.log");
    const log = createDebugLog({ debugFile: file, env: {} });
    log?.({ type: "warning", message: "a line" });
    await log?.close();
    expect(fs.readFileSync(file, "utf8")).toContain("a line");
    expect(modeOf(file)).toBe(0o600);
  });

  it("keeps the CLI's trust store private: GOAT_HOME 0700, trust.json 0600", async () => {
    const root = tempDir("goat-private-trust-");
    const home = path.join(root, "home");
    const project = path.join(root, "project");
    fs.mkdirSync(project);
    expect(await rememberTrustedFolder(project, { GOAT_HOME: home })).toBe(true);
    expect(modeOf(home)).toBe(0o700);
    expect(modeOf(path.join(home, "trust.json"))).toBe(0o600);
  });
});
