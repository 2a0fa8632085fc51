/**
 * The machine's managed settings file (Claude Code's `/etc/claude-code/managed-settings.json` on
 * Linux) joined with the host's `managedSettings`: every deny and ask rule of both holds, a
 * restriction either asks for applies, a key that would widen access is dropped, and a file that
 * exists but cannot be used stops the session naming the file. A missing file changes nothing.
 * Before, only the host's object was read.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ManagedSettingsError } from "../../src/settings/managed.js";
import { sessionManagedSettings, systemManagedSettingsFile } from "../../src/settings/managed-file.js";
import { tempDir } from "../support/temp-dirs.js";

function policyFile(value: unknown): string {
  const file = path.join(tempDir("goat-managed-file-"), "managed-settings.json");
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
  return file;
}

describe("the machine's managed settings file", () => {
  it("is where Claude Code's administrators put it", () => {
    expect(systemManagedSettingsFile("linux")).toBe("/etc/claude-code/managed-settings.json");
    expect(systemManagedSettingsFile("darwin")).toBe(
      "/Library/Application Support/ClaudeCode/managed-settings.json",
    );
  });

  it("joins the host's: rules of both, each restriction, widening keys dropped", () => {
    const file = policyFile({
      permissions: { deny: ["Bash(curl:*)"], disableBypassPermissionsMode: "disable", allow: ["Bash"] },
      sandbox: { enabled: true },
    });
    const managed = sessionManagedSettings(
      { permissions: { deny: ["Read(./.env)"], ask: ["Bash(git push:*)"] }, allowManagedHooksOnly: true },
      file,
    );
    expect(managed?.permissions).toEqual({
      deny: ["Bash(curl:*)", "Read(./.env)"],
      ask: ["Bash(git push:*)"],
      disableBypassPermissionsMode: true,
    });
    expect(managed?.managedHooksOnly).toBe(true);
    expect(managed?.sandbox).toEqual({ enabled: true });
    expect(managed?.dropped).toEqual(["permissions.allow"]);
  });

  it("alone, without the host's; nothing when neither exists", () => {
    const file = policyFile({ permissions: { deny: ["WebFetch"] } });
    expect(sessionManagedSettings(undefined, file)?.permissions.deny).toEqual(["WebFetch"]);
    const missing = path.join(tempDir("goat-managed-none-"), "managed-settings.json");
    expect(sessionManagedSettings(undefined, missing)).toBeUndefined();
    expect(sessionManagedSettings({ permissions: { ask: ["Bash"] } }, missing)?.permissions).toEqual({
      ask: ["Bash"],
    });
  });

  it("a file that cannot be used stops the session, naming it", () => {
    const broken = policyFile("{ not json");
    expect(() => sessionManagedSettings(undefined, broken)).toThrow(ManagedSettingsError);
    expect(() => sessionManagedSettings(undefined, broken)).toThrow(broken);
    const unenforceable = policyFile({ allowedMcpServers: [{ serverName: "x" }] });
    expect(() => sessionManagedSettings(undefined, unenforceable)).toThrow(
      new RegExp(`${unenforceable}.*cannot enforce allowedMcpServers`),
    );
  });

  it("is kept between sessions while the file is unchanged; a change, a break and a fix are each seen at the next start", () => {
    const file = policyFile({ permissions: { deny: ["WebFetch"] } });
    const first = sessionManagedSettings(undefined, file);
    first?.permissions.deny?.push("Bash"); // one session's copy is its own
    expect(sessionManagedSettings(undefined, file)?.permissions.deny).toEqual(["WebFetch"]);
    fs.writeFileSync(file, JSON.stringify({ permissions: { deny: ["WebFetch", "Bash(curl:*)"] } }));
    expect(sessionManagedSettings(undefined, file)?.permissions.deny).toEqual(["WebFetch", "Bash(curl:*)"]);
    fs.writeFileSync(file, "{ broken");
    expect(() => sessionManagedSettings(undefined, file)).toThrow(`managed settings file ${file}`);
    expect(() => sessionManagedSettings(undefined, file)).toThrow(ManagedSettingsError);
    fs.writeFileSync(file, JSON.stringify({ permissions: { ask: ["Edit"] } }));
    expect(sessionManagedSettings(undefined, file)?.permissions).toEqual({ ask: ["Edit"] });
    fs.rmSync(file);
    expect(sessionManagedSettings(undefined, file)).toBeUndefined();
  });
});
