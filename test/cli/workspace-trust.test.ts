/**
 * Workspace trust, end to end: `goat` started in a folder whose files would run code (a `.mcp.json`
 * stdio server and a SessionStart hook, each touching a marker file when it runs) asks before any of
 * it runs, in a real pseudo-terminal; print mode follows Claude Code's `-p` (an untrusted folder's
 * configuration left out, its deny rules kept), GOAT_REQUIRE_TRUST=1 asks approval of each
 * `.mcp.json` server too, GOAT_REQUIRE_TRUST=0 applies everything.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeStdioServer } from "../mcp/helpers.js";
import { reply } from "../support/mock-provider.js";
import { runCli, useCliFixture } from "./helpers.js";
import { type PtySession, startPty } from "./pty.js";

const hasScript = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const fx = useCliFixture("goat-trust");
/** The line after each turn (tokens and cost). */
const TURN_FOOTER = / in · .* out · \$\d/;
/** The banner's last line: the session's own screen is up. */
const BANNER = "Ctrl-D exits";
/** Waits for the session's prompt (keys typed before it meet a terminal not yet in raw mode). */
async function untilPrompt(session: PtySession, from = 0): Promise<number> {
  return session.waitFor("> ", { from: await session.waitFor(BANNER, { from }) });
}
const QUESTION = "Do you trust the files in this folder?";
let pty: PtySession | undefined;
afterEach(() => {
  pty?.kill();
  pty = undefined;
});

/** Markers the project's configuration leaves when it runs (outside the project, so no tool makes them). */
const markers = () => ({
  server: join(fx.home.path, "mcp-server-started"),
  second: join(fx.home.path, "second-server-started"),
  hook: join(fx.home.path, "session-start-hook-ran"),
});

/** A stdio server that touches `marker` when started, then serves the MCP fixture's tools. */
function serverConfig(marker: string) {
  const script = writeStdioServer(fx.home.path);
  return { command: "sh", args: ["-c", `touch '${marker}' && exec node '${script}'`] };
}

/** The hostile project: a .mcp.json server, a SessionStart hook, a pre-allowed command, an env key. */
function writeProject(servers: Record<string, unknown> = { marker: serverConfig(markers().server) }) {
  writeFileSync(join(fx.work.path, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
  mkdirSync(join(fx.work.path, ".goat"), { recursive: true });
  writeFileSync(
    join(fx.work.path, ".goat", "settings.json"),
    JSON.stringify({
      hooks: {
        SessionStart: [{ hooks: [{ type: "command", command: `touch '${markers().hook}'` }] }],
      },
      permissions: { allow: ["Bash(touch:*)"] },
      env: { GOAT_TRUST_TEST: "from-the-project" },
    }),
  );
}

const trustFile = () => join(fx.home.path, "trust.json");
const localSettings = () => join(fx.work.path, ".goat", "settings.local.json");
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));

describe.skipIf(!hasScript)("workspace trust in the interactive goat", () => {
  it("answered n: no project server, no project hook, no allow rule; the session works and nothing is remembered", async () => {
    writeProject();
    const made = join(fx.work.path, "made-by-bash");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: `touch ${made}` } }]),
      reply.text("Asked first, as it should."),
    );
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor(QUESTION);
    // What the folder would do is spelled out before the question.
    at = await pty.waitFor(/MCP server marker: sh -c touch/, { from: at });
    await pty.waitFor(/hook SessionStart: touch/, { from: at });
    await pty.waitFor("allow rule Bash(touch:*)", { from: at });
    await pty.waitFor("env GOAT_TRUST_TEST=from-the-project", { from: at });
    at = await pty.waitFor("Trust this folder?", { from: at });
    pty.type("n");
    at = await pty.waitFor("Continuing without this folder's configuration", { from: at });
    at = await untilPrompt(pty, at);
    pty.type("make a file\r");
    // The project's allow rule is not applied: the call asks.
    at = await pty.waitFor("Allow Bash(touch", { from: at });
    pty.type("n");
    at = await pty.waitFor("Asked first, as it should.", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
    expect(existsSync(markers().server)).toBe(false);
    expect(existsSync(markers().hook)).toBe(false);
    expect(existsSync(made)).toBe(false);
    expect(existsSync(trustFile())).toBe(false);
    expect(existsSync(localSettings())).toBe(false);
    // No MCP tool was offered to the model.
    expect(JSON.stringify(fx.mock.requests[0].body.tools)).not.toContain("mcp__marker");
  });

  it("answered y: trust and the server's approval are recorded, both run, and the next start asks nothing", async () => {
    writeProject();
    fx.mock.enqueue(reply.text("first session"));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("Trust this folder?");
    pty.type("\r"); // Enter trusts
    at = await pty.waitFor(`Trusted ${realpathSync(fx.work.path)} (remembered in ${trustFile()})`, {
      from: at,
    });
    at = await pty.waitFor("New MCP server in .mcp.json: marker", { from: at });
    await pty.waitFor("Use it?", { from: at });
    expect(existsSync(markers().server)).toBe(false); // not before the answer
    pty.type("y");
    at = await untilPrompt(pty, at);
    pty.type("hello\r");
    at = await pty.waitFor("first session", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
    expect(existsSync(markers().server)).toBe(true);
    expect(existsSync(markers().hook)).toBe(true);
    expect(Object.keys(readJson(trustFile()).trustedFolders)).toEqual([realpathSync(fx.work.path)]);
    expect(readJson(localSettings())).toEqual({ enabledMcpjsonServers: ["marker"] });
    expect(JSON.stringify(fx.mock.requests[0].body.tools)).toContain("mcp__marker__echo");

    // The next start in the folder asks nothing; neither does one in a subfolder with its own hook.
    const sub = join(fx.work.path, "sub");
    const subHook = join(fx.home.path, "sub-hook-ran");
    mkdirSync(join(sub, ".goat"), { recursive: true });
    writeFileSync(
      join(sub, ".goat", "settings.json"),
      JSON.stringify({
        hooks: { SessionStart: [{ hooks: [{ type: "command", command: `touch '${subHook}'` }] }] },
      }),
    );
    for (const [cwd, answer] of [
      [fx.work.path, "second session"],
      [sub, "third session"],
    ]) {
      fx.mock.enqueue(reply.text(answer));
      pty = startPty([], fx.env, cwd);
      at = await untilPrompt(pty);
      pty.type("again\r");
      at = await pty.waitFor(answer, { from: at });
      await pty.waitFor(TURN_FOOTER, { from: at });
      pty.type("\x04");
      expect(await pty.exited).toBe(0);
      expect(pty.output()).not.toContain(QUESTION);
      expect(pty.output()).not.toContain("New MCP server");
    }
    expect(existsSync(subHook)).toBe(true);
  });

  it("a server added to .mcp.json later is asked about, alone; a rejected one never starts", async () => {
    writeProject({ marker: serverConfig(markers().server), second: serverConfig(markers().second) });
    writeFileSync(trustFile(), JSON.stringify({ trustedFolders: { [realpathSync(fx.work.path)]: {} } }));
    writeFileSync(
      localSettings(),
      JSON.stringify({ enabledMcpjsonServers: ["marker"], outputStyle: "default" }),
    );
    fx.mock.enqueue(reply.text("with one server"));
    pty = startPty([], fx.env, fx.work.path);
    let at = await pty.waitFor("New MCP server in .mcp.json: second");
    pty.type("n");
    at = await untilPrompt(pty, at);
    pty.type("hi\r");
    at = await pty.waitFor("with one server", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
    expect(pty.output()).not.toContain(QUESTION);
    expect(pty.output()).not.toContain("New MCP server in .mcp.json: marker");
    expect(existsSync(markers().server)).toBe(true);
    expect(existsSync(markers().second)).toBe(false);
    // The file's other keys are kept; the answer is added.
    expect(readJson(localSettings())).toEqual({
      enabledMcpjsonServers: ["marker"],
      outputStyle: "default",
      disabledMcpjsonServers: ["second"],
    });
  });

  it("disabledMcpjsonServers in any settings file wins over the project's own approval of all its servers", async () => {
    writeProject();
    writeFileSync(trustFile(), JSON.stringify({ trustedFolders: { [realpathSync(fx.work.path)]: {} } }));
    writeFileSync(localSettings(), JSON.stringify({ enableAllProjectMcpServers: true }));
    writeFileSync(
      join(fx.home.path, "settings.json"),
      JSON.stringify({ disabledMcpjsonServers: ["marker"] }),
    );
    fx.mock.enqueue(reply.text("no server here"));
    pty = startPty([], fx.env, fx.work.path);
    let at = await untilPrompt(pty);
    pty.type("hi\r");
    at = await pty.waitFor("no server here", { from: at });
    await pty.waitFor(TURN_FOOTER, { from: at });
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
    expect(pty.output()).not.toContain("New MCP server");
    expect(existsSync(markers().server)).toBe(false);
    expect(existsSync(markers().hook)).toBe(true); // the trusted folder's hook runs
  });

  it("on a dumb terminal the questions are plain lines: an empty line trusts, n rejects the server", async () => {
    writeProject();
    fx.mock.enqueue(reply.text("plain session"));
    pty = startPty([], fx.env, fx.work.path, { term: "dumb" });
    let at = await pty.waitFor("Trust this folder?");
    pty.type("\r");
    at = await pty.waitFor("New MCP server in .mcp.json: marker", { from: at });
    await pty.waitFor("Use it?", { from: at });
    pty.type("n\r");
    at = await pty.waitFor("Not using marker (recorded in", { from: at });
    at = await pty.waitFor(BANNER, { from: at });
    pty.type("hi\r");
    await pty.waitFor("plain session", { from: at });
    pty.type("\x04");
    expect(await pty.exited).toBe(0);
    expect(existsSync(trustFile())).toBe(true);
    expect(readJson(localSettings())).toEqual({ disabledMcpjsonServers: ["marker"] });
    expect(existsSync(markers().server)).toBe(false);
    expect(existsSync(markers().hook)).toBe(true);
  });

  it("a folder whose files only narrow the session asks nothing; Ctrl-C at the question quits before anything runs", async () => {
    mkdirSync(join(fx.work.path, ".goat"));
    writeFileSync(
      join(fx.work.path, ".goat", "settings.json"),
      JSON.stringify({ permissions: { deny: ["Bash(rm:*)"], defaultMode: "plan" }, verbose: true }),
    );
    pty = startPty([], fx.env, fx.work.path);
    await untilPrompt(pty);
    expect(pty.output()).not.toContain(QUESTION);
    expect(pty.output()).toContain("· plan ·"); // the narrower mode applies
    pty.type("\x04");
    expect(await pty.exited).toBe(0);

    writeProject();
    pty = startPty([], fx.env, fx.work.path);
    await pty.waitFor("Trust this folder?");
    pty.type("\x03");
    expect(await pty.exited).toBe(130);
    expect(pty.output()).not.toContain(BANNER);
    expect(existsSync(markers().server)).toBe(false);
    expect(existsSync(markers().hook)).toBe(false);
    expect(existsSync(trustFile())).toBe(false);
  });
});

describe("workspace trust in print mode", () => {
  it("-p leaves out an untrusted folder's servers, hooks, allow rules and env with one line on stderr; GOAT_REQUIRE_TRUST=0 applies them", async () => {
    writeProject();
    const made = join(fx.work.path, "made-by-bash");
    fx.mock.enqueue(
      reply.toolCalls([{ name: "Bash", input: { command: `touch ${made}` } }]),
      reply.text("not allowed here"),
    );
    let r = await runCli(["-p", "hi"], { env: fx.env, cwd: fx.work.path });
    expect(r.code).toBe(0);
    // The refused touch is said on a line of its own (print mode's denial line); the notice is one line.
    const all = r.stderr.trim().split("\n");
    expect(all.filter((l) => l.startsWith("goat: denied Bash"))).toHaveLength(1);
    const lines = all.filter((l) => !l.startsWith("goat: denied "));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`goat: ${fx.work.path} is not a trusted folder: left out`);
    expect(lines[0]).toContain("MCP server marker (.mcp.json)");
    expect(lines[0]).toContain("allow rule Bash(touch:*) (.goat/settings.json)");
    expect(lines[0]).toContain("env GOAT_TRUST_TEST=from-the-project");
    expect(existsSync(markers().server)).toBe(false);
    expect(existsSync(markers().hook)).toBe(false);
    expect(existsSync(made)).toBe(false); // the allow rule did not apply: -p cannot ask, so it is refused
    expect(JSON.stringify(fx.mock.requests[0].body.tools)).not.toContain("mcp__marker");

    fx.mock.enqueue(reply.text("as before"));
    r = await runCli(["-p", "hi"], { env: { ...fx.env, GOAT_REQUIRE_TRUST: "0" }, cwd: fx.work.path });
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("as before");
    expect(existsSync(markers().server)).toBe(true);
    expect(existsSync(markers().hook)).toBe(true);
    expect(JSON.stringify(fx.mock.requests[2].body.tools)).toContain("mcp__marker__echo");
  });

  it("-p in a trusted folder applies its configuration; GOAT_REQUIRE_TRUST=1 starts only approved .mcp.json servers", async () => {
    writeProject();
    writeFileSync(trustFile(), JSON.stringify({ trustedFolders: { [realpathSync(fx.work.path)]: {} } }));
    fx.mock.enqueue(reply.text("trusted folder"));
    let r = await runCli(["-p", "hi"], { env: fx.env, cwd: fx.work.path });
    expect(r.stderr).toBe("");
    expect(existsSync(markers().server)).toBe(true);
    expect(existsSync(markers().hook)).toBe(true);

    for (const m of Object.values(markers())) if (existsSync(m)) execFileSync("rm", [m]);
    fx.mock.enqueue(reply.text("approved only"));
    r = await runCli(["-p", "hi"], { env: { ...fx.env, GOAT_REQUIRE_TRUST: "1" }, cwd: fx.work.path });
    expect(r.stdout).toContain("approved only");
    expect(r.stderr).toContain("MCP server marker of .mcp.json is not approved (GOAT_REQUIRE_TRUST=1)");
    expect(existsSync(markers().hook)).toBe(true);
    expect(existsSync(markers().server)).toBe(false);
  });

  it("-p never starts a server in disabledMcpjsonServers, even in a trusted folder", async () => {
    writeProject();
    writeFileSync(trustFile(), JSON.stringify({ trustedFolders: { [realpathSync(fx.work.path)]: {} } }));
    mkdirSync(join(fx.work.path, ".claude"));
    writeFileSync(
      join(fx.work.path, ".claude", "settings.local.json"),
      JSON.stringify({ disabledMcpjsonServers: ["marker"] }),
    );
    fx.mock.enqueue(reply.text("without it"));
    const r = await runCli(["-p", "hi"], { env: fx.env, cwd: fx.work.path });
    expect(r.stdout).toContain("without it");
    expect(existsSync(markers().server)).toBe(false);
    expect(JSON.stringify(fx.mock.requests[0].body.tools)).not.toContain("mcp__marker");
  });
});
