/**
 * Agent Skills in `goat -p`: in a trusted folder the project's `.claude/skills/pdf/SKILL.md` is listed
 * in `system/init.skills` and the Skill tool (name and description only), and the model calling it
 * gets the body; in a folder the user has not trusted, the project's skills do not apply and stderr
 * names them; a user's skill (`$CLAUDE_CONFIG_DIR/skills`) applies anywhere. Before, the files were
 * not read and there was no Skill tool.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { reply } from "../support/mock-provider.js";
import { jsonLines, runCli, trustWorkFolder, useCliFixture } from "./helpers.js";

const fx = useCliFixture("goat-skills");

function write(file: string, text: string) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function writeProject() {
  const dir = join(fx.work.path, ".claude", "skills", "pdf");
  write(
    join(dir, "SKILL.md"),
    "---\nname: pdf\ndescription: Fill PDF forms\n---\nRun scripts/fill.py. BODY-MARKER\n",
  );
  write(join(dir, "scripts", "fill.py"), "print('filled')\n");
}

const run = (prompt: string) =>
  runCli(["-p", prompt, "--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5"], {
    env: fx.env,
    cwd: fx.work.path,
    timeoutMs: 30_000,
  });

const init = (stdout: string) => jsonLines(stdout).find((m) => m.type === "system" && m.subtype === "init");
const skillTool = (request: number) =>
  fx.mock.requests[request].body.tools.find((t: { name: string }) => t.name === "Skill");

describe("Agent Skills in goat -p", () => {
  it("trusted folder: the skill is listed by name and description, and Skill returns its body", async () => {
    writeProject();
    trustWorkFolder(fx);
    fx.mock.enqueue(reply.toolCalls([{ name: "Skill", input: { skill: "pdf" } }]), reply.text("done"));
    const out = await run("fill the form");
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(init(out.stdout).skills).toEqual(["pdf"]);
    expect(skillTool(0).description).toContain("- pdf: Fill PDF forms");
    expect(JSON.stringify(fx.mock.requests[0].body)).not.toContain("BODY-MARKER");
    const sent = JSON.stringify(fx.mock.requests[1].body.messages);
    expect(sent).toContain("BODY-MARKER");
    expect(sent).toContain(join(fx.work.path, ".claude", "skills", "pdf"));
  });

  it("untrusted folder: the project's skills do not apply, and stderr names them", async () => {
    writeProject();
    fx.mock.enqueue(reply.text("done"));
    const out = await run("hello");
    expect(out.code).toBe(0);
    expect(out.stderr).toContain("skills pdf (.claude/skills)");
    expect(init(out.stdout).skills).toEqual([]);
    expect(skillTool(0)).toBeUndefined();
  });

  it("a user's skill from $CLAUDE_CONFIG_DIR/skills applies in any folder", async () => {
    write(
      join(fx.env.CLAUDE_CONFIG_DIR, "skills", "notes", "SKILL.md"),
      "---\ndescription: Take notes\n---\nWrite notes.\n",
    );
    fx.mock.enqueue(reply.text("hi"));
    const out = await run("hello");
    expect(out.code).toBe(0);
    expect(init(out.stdout).skills).toEqual(["notes"]);
  });
});
