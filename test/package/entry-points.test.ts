/**
 * The package's entry points as a program sees them: the built `dist/`, imported by name
 * (`goat-agent`, `goat-agent/tools`, …) through Node's package self-reference, in a child process.
 * Every entry in package.json `exports` loads; a name exported by several entries is the same object
 * in each (subpaths re-export, never copy); and an error thrown by code reached through one subpath is
 * caught by the classes imported from another — `instanceof GoatError` and its subclasses hold
 * whichever path a program imported them from.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  name: string;
  exports: Record<string, unknown>;
};
const specifiers = Object.keys(pkg.exports).map((subpath) =>
  subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
);

/** Runs an ES module script with the package's own directory as its scope; returns its JSON output. */
async function inPackage(script: string): Promise<any> {
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
    cwd: ROOT,
    // Nothing here writes a transcript; a home that does not exist makes sure none is read either.
    env: { ...process.env, GOAT_HOME: join(tmpdir(), `goat-entry-points-${process.pid}-none`) },
  });
  return JSON.parse(stdout);
}

describe("the entry points of package.json exports", () => {
  it("each loads and exports something; a name exported by several is one object", async () => {
    const report = await inPackage(`
      const specifiers = ${JSON.stringify(specifiers)};
      // DBOS and pg are optional peers: goat-agent/dbos loads them only when used, so it imports here too.
      const modules = Object.fromEntries(await Promise.all(specifiers.map(async (s) => [s, await import(s)])));
      const owners = new Map();
      const copies = [];
      for (const [specifier, module] of Object.entries(modules)) {
        for (const [name, value] of Object.entries(module)) {
          const first = owners.get(name);
          if (!first) owners.set(name, { specifier, value });
          else if (first.value !== value) copies.push(name + " differs between " + first.specifier + " and " + specifier);
        }
      }
      const shared = [...owners.keys()].filter((name) =>
        Object.values(modules).filter((m) => name in m).length > 1);
      console.log(JSON.stringify({
        counts: Object.fromEntries(Object.entries(modules).map(([s, m]) => [s, Object.keys(m).length])),
        copies,
        shared,
      }));
    `);
    for (const specifier of specifiers) expect(report.counts[specifier], specifier).toBeGreaterThan(0);
    expect(report.copies).toEqual([]);
    // The names that make the check meaningful: errors and tools reachable from more than one entry.
    expect(report.shared).toEqual(
      expect.arrayContaining([
        "SettingsError",
        "ProviderError",
        "SessionNotFoundError",
        "defineTool",
        "jsonSchema",
      ]),
    );
  });

  it("the root import loads no CommonJS package; a glob rule loads picomatch when first used", async () => {
    // A CommonJS package imported at start-up starts Node's CommonJS loader and export scan: about a
    // third of the import's time with picomatch and ignore (bench/import.mjs).
    const loaded = await inPackage(`
      import { createRequire } from "node:module";
      const cache = createRequire(process.cwd() + "/").cache;
      const packages = () => [...new Set(Object.keys(cache).map((f) => /node_modules\\/([^/]+)/.exec(f)?.[1]).filter(Boolean))].sort();
      await import("goat-agent");
      const atImport = packages();
      const { createPermissionEngine } = await import("goat-agent/permissions");
      createPermissionEngine({ cwd: process.cwd(), allowedTools: ["Read(src/**/*.ts)"] });
      console.log(JSON.stringify({ atImport, afterRule: packages() }));
    `);
    expect(loaded.atImport).toEqual([]);
    expect(loaded.afterRule).toContain("picomatch");
  });

  it("an error thrown through one subpath is an instance of the classes imported from another", async () => {
    const caught = await inPackage(`
      import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
      import { tmpdir } from "node:os";
      import { join } from "node:path";
      import * as root from "goat-agent";
      const attempt = async (name, f) => {
        try { await f(); return { name, thrown: false }; } catch (error) {
          return {
            name,
            code: error.code,
            option: error.option,
            goat: error instanceof root.GoatError,
            classes: ["InvalidOptionError", "SessionNotFoundError", "PermissionRuleError", "SandboxSettingsError",
              "SettingsError", "ProviderError", "CompactionError", "SandboxUnavailableError", "InvalidToolError",
              "McpConfigError"]
              .filter((c) => error instanceof root[c]),
          };
        }
      };
      const providers = await import("goat-agent/providers");
      const session = await import("goat-agent/session");
      const permissions = await import("goat-agent/permissions");
      const sandbox = await import("goat-agent/sandbox");
      const settings = await import("goat-agent/settings");
      const hooks = await import("goat-agent/hooks");
      const tools = await import("goat-agent/tools");
      const mcp = await import("goat-agent/mcp");
      const dir = mkdtempSync(join(tmpdir(), "goat-entry-"));
      writeFileSync(join(dir, "settings.json"), "{ not json");
      console.log(JSON.stringify(await Promise.all([
        attempt("provider type", () => providers.createProviderRegistry([{ type: "nope", name: "x" }])),
        attempt("unknown model provider", () => providers.resolveModel("nowhere/model")),
        attempt("missing session", () =>
          session.getSessionMessages("no-such-session", { store: session.createInMemorySessionStore() })),
        attempt("bad rule", () => permissions.createPermissionEngine({ cwd: dir, allowedTools: ["Bash(npm test"] })),
        attempt("bad sandbox", () => sandbox.resolveSandboxSettings({ enabled: "yes" })),
        attempt("bad settings file", () => settings.loadSettings([join(dir, "settings.json")])),
        attempt("unknown hook event", () => hooks.buildHookRegistry({ hooks: { NotAnEvent: [] } })),
        attempt("unknown built-in tool", () => tools.resolveTools(["Read", "Teleport"])),
        attempt("two tools of one name", () => tools.createToolRegistry([tools.readTool, tools.readTool])),
        attempt("bad .mcp.json", () => mcp.parseMcpConfig({ mcpServers: ["not", "a", "record"] }, {})),
      ])));
      rmSync(dir, { recursive: true, force: true });
    `);
    expect(caught).toEqual([
      {
        name: "provider type",
        code: "invalid_option",
        option: "provider",
        goat: true,
        classes: ["InvalidOptionError"],
      },
      {
        name: "unknown model provider",
        code: "invalid_option",
        option: "model",
        goat: true,
        classes: ["InvalidOptionError"],
      },
      { name: "missing session", code: "session_not_found", goat: true, classes: ["SessionNotFoundError"] },
      { name: "bad rule", code: "invalid_permission_rule", goat: true, classes: ["PermissionRuleError"] },
      {
        name: "bad sandbox",
        code: "invalid_sandbox_settings",
        goat: true,
        classes: ["SandboxSettingsError"],
      },
      { name: "bad settings file", code: "invalid_settings", goat: true, classes: ["SettingsError"] },
      {
        name: "unknown hook event",
        code: "invalid_option",
        option: "hooks",
        goat: true,
        classes: ["InvalidOptionError"],
      },
      {
        name: "unknown built-in tool",
        code: "invalid_option",
        option: "tools",
        goat: true,
        classes: ["InvalidOptionError"],
      },
      { name: "two tools of one name", code: "invalid_tool", goat: true, classes: ["InvalidToolError"] },
      { name: "bad .mcp.json", code: "invalid_mcp_config", goat: true, classes: ["McpConfigError"] },
    ]);
  });
});
