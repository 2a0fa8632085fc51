import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hookSettingsFiles, loadHookSettings } from "../../src/hooks/index.js";
import { bashCall, opts, testRunner } from "./support.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "goat-hooks-settings-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function writeSettings(name: string, content: unknown): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

describe("loadHookSettings", () => {
  it("reads Claude Code's hooks shape and merges files in order", async () => {
    const user = writeSettings("home/.goat/settings.json", {
      permissions: { allow: ["Bash"] },
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo user", timeout: 5 }] }],
      },
    });
    const project = writeSettings("proj/.goat/settings.json", {
      hooks: {
        PreToolUse: [{ hooks: [{ type: "command", command: "echo project" }] }],
        Stop: [{ hooks: [{ type: "command", command: "echo stop" }] }],
      },
    });
    const hooks = loadHookSettings([user, project]);
    expect(hooks).toEqual({
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "command", command: "echo user", timeout: 5, source: user }] },
        { hooks: [{ type: "command", command: "echo project", timeout: undefined, source: project }] },
      ],
      Stop: [{ hooks: [{ type: "command", command: "echo stop", timeout: undefined, source: project }] }],
    });
  });

  it("skips missing files and files without hooks", () => {
    const noHooks = writeSettings("a.json", { model: "x" });
    expect(loadHookSettings([path.join(dir, "missing.json"), noHooks])).toEqual({});
  });

  it("names the file when its JSON is invalid", () => {
    const bad = writeSettings("proj/.goat/settings.json", '{"hooks": {');
    expect(() => loadHookSettings([bad])).toThrow(new RegExp(`Invalid JSON in settings file ${bad}`));
  });

  it("names the file and the spot of a malformed hook", () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ hooks: [] }, /at hooks: expected an object/],
      [{ hooks: { PreToolUse: {} } }, /at hooks\.PreToolUse: expected an array/],
      [{ hooks: { OnBoot: [] } }, /at hooks\.OnBoot: unknown hook event; supported events: PreToolUse/],
      [
        { hooks: { Stop: [{ hooks: [{ type: "prompt", prompt: "x" }] }] } },
        /hooks\.Stop\[0\]\.hooks\[0\]\.type: handler type "prompt" is not supported/,
      ],
      [
        { hooks: { Stop: [{ hooks: [{ type: "command" }] }] } },
        /hooks\.Stop\[0\]\.hooks\[0\]\.command: expected a command/,
      ],
      [
        { hooks: { Stop: [{ hooks: [{ type: "command", command: "x", timeout: -1 }] }] } },
        /timeout: expected a positive number/,
      ],
      [
        { hooks: { PreToolUse: [{ matcher: "Bash(", hooks: [] }] } },
        /hooks\.PreToolUse\[0\]\.matcher: Invalid hook matcher/,
      ],
    ];
    for (const [content, message] of cases) {
      const file = writeSettings("s.json", content);
      expect(() => loadHookSettings([file])).toThrow(message);
      expect(() => loadHookSettings([file])).toThrow(file);
    }
  });

  it("lists the user file before the project file", () => {
    expect(hookSettingsFiles("/p", "/h")).toEqual(["/h/.goat/settings.json", "/p/.goat/settings.json"]);
  });

  it("loaded hooks run through the runner", async () => {
    const file = writeSettings(".goat/settings.json", {
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo nope >&2; exit 2" }] }],
      },
    });
    const runner = testRunner({ cwd: dir, settingsHooks: loadHookSettings([file]) });
    const r = await runner.run("PreToolUse", bashCall, opts());
    expect(r.permissionDecision).toBe("deny");
    expect(r.permissionDecisionReason).toBe("nope");
  });
});
