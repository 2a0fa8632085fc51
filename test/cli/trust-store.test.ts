/**
 * The trusted folders in `$GOAT_HOME/trust.json` and the `.mcp.json` answers in settings files, on
 * real files in temp folders.
 */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readMcpjsonApprovals, recordMcpjsonChoice } from "../../src/cli/trust/mcp-approvals.js";
import {
  canRememberTrust,
  isFolderTrusted,
  realFolder,
  rememberTrustedFolder,
} from "../../src/cli/trust/store.js";

let home: string;
let work: string;
let env: Record<string, string | undefined>;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "goat-trust-home-"));
  work = realpathSync(mkdtempSync(join(tmpdir(), "goat-trust-work-")));
  env = { GOAT_HOME: home };
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe("trusted folders", () => {
  it("a trusted folder covers its subfolders, not its parent or its siblings; symlinks are resolved", async () => {
    const project = join(work, "project");
    mkdirSync(join(project, "deep", "er"), { recursive: true });
    mkdirSync(join(work, "project-other"));
    expect(isFolderTrusted(project, env)).toBe(false);
    expect(await rememberTrustedFolder(project, env, new Date("2025-01-02T03:04:05Z"))).toBe(true);
    expect(JSON.parse(readFileSync(join(home, "trust.json"), "utf8"))).toEqual({
      trustedFolders: { [project]: { trustedAt: "2025-01-02T03:04:05.000Z" } },
    });
    expect(isFolderTrusted(project, env)).toBe(true);
    expect(isFolderTrusted(join(project, "deep", "er"), env)).toBe(true);
    expect(isFolderTrusted(work, env)).toBe(false);
    expect(isFolderTrusted(join(work, "project-other"), env)).toBe(false);
    symlinkSync(project, join(work, "link"));
    expect(isFolderTrusted(realFolder(join(work, "link")), env)).toBe(true);
  });

  it("the home folder and / are never remembered, even when a hand-edited file lists them", async () => {
    expect(canRememberTrust("/")).toBe(false);
    expect(canRememberTrust(realFolder(homedir()))).toBe(false);
    expect(await rememberTrustedFolder("/", env)).toBe(false);
    writeFileSync(join(home, "trust.json"), JSON.stringify({ trustedFolders: { "/": {} } }));
    expect(isFolderTrusted(work, env)).toBe(false);
  });

  it("a broken trust file trusts nothing and is never overwritten", async () => {
    writeFileSync(join(home, "trust.json"), "{ not json");
    expect(isFolderTrusted(work, env)).toBe(false);
    await expect(rememberTrustedFolder(work, env)).rejects.toThrow(
      /trust\.json is not valid JSON .*left unchanged/,
    );
    expect(readFileSync(join(home, "trust.json"), "utf8")).toBe("{ not json");
  });
});

describe(".mcp.json answers", () => {
  it("a rejection in any file wins; an approval names its file; answers are recorded with the file's other keys kept", async () => {
    mkdirSync(join(work, ".claude"));
    writeFileSync(
      join(work, ".claude", "settings.local.json"),
      JSON.stringify({ disabledMcpjsonServers: ["a"] }),
    );
    writeFileSync(join(home, "settings.json"), JSON.stringify({ enableAllProjectMcpServers: true }));
    let approvals = readMcpjsonApprovals(work, env);
    expect(approvals.rejected("a")).toBe(true);
    expect(approvals.rejected("b")).toBe(false);
    expect(approvals.approvedIn("b")).toBe(join(home, "settings.json"));

    rmSync(join(home, "settings.json"));
    mkdirSync(join(work, ".goat"));
    writeFileSync(
      join(work, ".goat", "settings.local.json"),
      JSON.stringify({ model: "m", enabledMcpjsonServers: ["b"] }),
    );
    await recordMcpjsonChoice(work, { kind: "enable", name: "b" });
    await recordMcpjsonChoice(work, { kind: "disable", name: "c" });
    expect(JSON.parse(readFileSync(join(work, ".goat", "settings.local.json"), "utf8"))).toEqual({
      model: "m",
      enabledMcpjsonServers: ["b"],
      disabledMcpjsonServers: ["c"],
    });
    approvals = readMcpjsonApprovals(work, env, JSON.stringify({ disabledMcpjsonServers: ["b"] }));
    expect(approvals.rejected("b")).toBe(true);
    expect(approvals.rejected("c")).toBe(true);
    expect(approvals.approvedIn("d")).toBeUndefined();
  });

  it("a local settings file that is not JSON is left as it is and the answer is refused", async () => {
    mkdirSync(join(work, ".goat"));
    writeFileSync(join(work, ".goat", "settings.local.json"), "// my notes\n");
    await expect(recordMcpjsonChoice(work, { kind: "enableAll" })).rejects.toThrow(/left unchanged/);
    expect(readFileSync(join(work, ".goat", "settings.local.json"), "utf8")).toBe("// my notes\n");
  });
});
