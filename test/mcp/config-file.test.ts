// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are config text holding ${VAR} placeholders
/**
 * Reading `.mcp.json`-style config: shapes, environment expansion, bad servers skipped with a reason.
 */
import { describe, expect, it } from "vitest";
import { parseMcpConfig } from "../../src/mcp/config-file.js";

describe("parseMcpConfig", () => {
  it("reads stdio, http and sse servers and expands ${VAR} and ${VAR:-default}", () => {
    const { servers, errors } = parseMcpConfig(
      {
        mcpServers: {
          fs: { command: "npx", args: ["-y", "server-fs", "${HOME_DIR}"], env: { LEVEL: "${LEVEL:-info}" } },
          gh: {
            type: "http",
            url: "https://api.example.com/mcp",
            headers: { Authorization: "Bearer ${GH_TOKEN}" },
          },
          old: { type: "sse", url: "http://127.0.0.1:9/sse" },
        },
      },
      { HOME_DIR: "/home/me", GH_TOKEN: "abc" },
    );
    expect(errors).toEqual({});
    expect(servers).toEqual({
      fs: { command: "npx", args: ["-y", "server-fs", "/home/me"], env: { LEVEL: "info" } },
      gh: { type: "http", url: "https://api.example.com/mcp", headers: { Authorization: "Bearer abc" } },
      old: { type: "sse", url: "http://127.0.0.1:9/sse" },
    });
  });

  it("skips servers with a bad shape or an unset variable, saying why, and keeps the rest", () => {
    const { servers, errors } = parseMcpConfig(
      {
        nocmd: { args: ["x"] },
        badurl: { type: "http", url: "not a url" },
        secret: { type: "http", url: "https://x/mcp", headers: { Authorization: "${NOPE}" } },
        ok: { command: "node" },
      },
      {},
    );
    expect(Object.keys(servers)).toEqual(["ok"]);
    expect(errors.nocmd).toMatch(/command/);
    expect(errors.badurl).toMatch(/url/);
    expect(errors.secret).toMatch(/NOPE not set/);
  });

  it("refuses a value that is not an object", () => {
    expect(() => parseMcpConfig([])).toThrow(/JSON object/);
    expect(() => parseMcpConfig({ mcpServers: 3 })).toThrow(/mcpServers must be an object/);
  });
});
