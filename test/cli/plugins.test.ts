/**
 * Claude Code plugins in `goat -p --plugin-dir DIR`: the plugin is listed in `system/init.plugins`,
 * its command runs as `/review-kit:review args`, its skill and agent are offered under its name,
 * and its MCP server starts. A broken manifest is one line on stderr naming the file, and the rest
 * of the plugin loads. Before, `--plugin-dir` was accepted and ignored with a warning.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PLUGIN, writeReviewPlugin } from "../support/claude-plugin-fixture.js";
import { reply } from "../support/mock-provider.js";
import { jsonLines, runCli, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-plugins");

const run = (prompt: string, pluginDir: string) =>
  runCli(
    [
      "-p",
      prompt,
      "--output-format",
      "stream-json",
      "--verbose",
      "--model",
      "claude-sonnet-4-5",
      "--plugin-dir",
      pluginDir,
    ],
    { env: fx.env, cwd: fx.work.path, timeoutMs: 30_000 },
  );

const init = (stdout: string) => jsonLines(stdout).find((m) => m.type === "system" && m.subtype === "init");

describe("plugins in goat -p", () => {
  it("--plugin-dir: the plugin's command expands, and its parts are listed under its name", async () => {
    const dir = writeReviewPlugin(join(fx.home.path, "plugins", "review-kit"));
    fx.mock.enqueue(reply.text("reviewed"));
    const out = await run(`/${PLUGIN.command} a.ts`, dir);
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    const message = init(out.stdout);
    expect(message.plugins).toEqual([{ name: PLUGIN.name, path: dir, version: PLUGIN.version }]);
    expect(message.slash_commands).toContain(PLUGIN.command);
    expect(message.agents).toContain(PLUGIN.agent);
    expect(message.skills).toEqual([PLUGIN.skill]);
    expect(message.mcp_servers).toContainEqual({ name: PLUGIN.server, status: "connected" });
    expect(JSON.stringify(fx.mock.requests[0].body.messages)).toContain(
      `${PLUGIN.commandMarker}: review a.ts (first: a.ts)`,
    );
  });

  it("a broken manifest is one line on stderr naming it; the plugin's command still loads", async () => {
    const dir = writeReviewPlugin(join(fx.home.path, "plugins", "review-kit"));
    const manifest = join(dir, ".claude-plugin", "plugin.json");
    writeFileSync(manifest, JSON.stringify({ name: 42 }));
    fx.mock.enqueue(reply.text("ok"));
    const out = await run("hello", dir);
    expect(out.code).toBe(0);
    const lines = out.stderr.split("\n").filter((line) => line.includes(manifest));
    expect(lines).toEqual([expect.stringContaining('"name" must be a string')]);
    expect(init(out.stdout).slash_commands).toContain(PLUGIN.command);
  });
});
