/**
 * Agent Skills (`.claude/skills/<name>/SKILL.md`) in `query()` with `settingSources`: only each
 * skill's name and description reach the prompt (in the Skill tool's description), the model
 * calling `Skill({ skill })` gets the body and the skill's folder, `Skill(name)` rules deny it,
 * `allowed-tools` approve calls once the skill is used (never past a deny rule), `system/init.skills`
 * lists it, and a malformed front matter line is one warning naming the file while the rest loads.
 * Before, the files were not read, `skills` was refused and there was no Skill tool.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { QueryOptions } from "../../src/sdk/options.js";
import { query } from "../../src/sdk/query.js";
import { reply } from "../support/mock-provider.js";
import { collect, mockOptions, resultOf, tempDir, useMockProvider } from "./helpers.js";

const mock = useMockProvider();
let home: string;
let claudeHome: string;
let cwd: string;
beforeEach(() => {
  home = tempDir("goat-skills-home-");
  claudeHome = tempDir("goat-skills-claude-");
  cwd = tempDir("goat-skills-cwd-");
});

function write(file: string, text: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const PDF_BODY = "To fill a PDF form, run scripts/fill.py with the field values. SECRET-BODY-MARKER";

/** The fixture: a pdf skill with a helper file, a skill with a broken line, one without description. */
function writeProject(settings: object = {}) {
  const pdf = path.join(cwd, ".claude", "skills", "pdf");
  write(
    path.join(pdf, "SKILL.md"),
    `---\nname: pdf\ndescription: Fill and extract PDF forms\nallowed-tools: Bash(mkdir:*), Bash(rm:*)\n---\n${PDF_BODY}\n`,
  );
  write(path.join(pdf, "scripts", "fill.py"), "print('filled')\n");
  write(
    path.join(cwd, ".claude", "skills", "sloppy", "SKILL.md"),
    "---\ndescription: Still loads\nthis line is not yaml\n---\nBe sloppy.\n",
  );
  write(path.join(cwd, ".claude", "skills", "mute", "SKILL.md"), "---\nname: mute\n---\nNo description.\n");
  write(path.join(cwd, ".claude", "settings.json"), JSON.stringify(settings));
}

function options(extra: QueryOptions = {}): QueryOptions {
  return mockOptions(mock, "anthropic", {
    cwd,
    env: { PATH: process.env.PATH, GOAT_HOME: home, CLAUDE_CONFIG_DIR: claudeHome },
    permissionMode: "default",
    settingSources: ["project"],
    tools: ["Bash", "Read", "Skill"],
    ...extra,
  });
}

type Msg = Awaited<ReturnType<typeof collect>>[number];

function warnings(messages: Msg[]): string[] {
  return messages.flatMap((m) =>
    m.type === "system" && m.subtype === "informational" ? [String(m.content)] : [],
  );
}

function toolResults(messages: Msg[]): string[] {
  return messages.flatMap((m: any) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? m.message.content.flatMap((b: any) => (b.type === "tool_result" ? [JSON.stringify(b.content)] : []))
      : [],
  );
}

function skillTool(request = 0): { description: string } | undefined {
  return mock.requests[request].body.tools.find((t: { name: string }) => t.name === "Skill");
}

describe("Agent Skills in query()", () => {
  it("lists name and description only in the Skill tool, and in system/init; a broken file is one warning", async () => {
    writeProject();
    mock.enqueue(reply.text("ok"));
    const messages = await collect(query({ prompt: "hello", options: options() }));
    expect(resultOf(messages).subtype).toBe("success");
    const init = messages.find((m) => m.type === "system" && m.subtype === "init") as { skills: string[] };
    expect(init.skills).toEqual(["pdf", "sloppy"]);
    const tool = skillTool();
    expect(tool?.description).toContain("- pdf: Fill and extract PDF forms");
    expect(tool?.description).toContain("- sloppy: Still loads");
    // Progressive disclosure: the body is not in the prompt until the model asks for it.
    expect(JSON.stringify(mock.requests[0].body)).not.toContain("SECRET-BODY-MARKER");
    const sloppy = path.join(cwd, ".claude", "skills", "sloppy", "SKILL.md");
    expect(warnings(messages).filter((w) => w.includes(sloppy))).toEqual([
      expect.stringContaining(`${sloppy}:3:`),
    ]);
    expect(warnings(messages)).toContainEqual(expect.stringContaining("mute"));
  });

  it("the model calling Skill gets the body and the folder, and can read the helper file there", async () => {
    writeProject();
    const dir = path.join(cwd, ".claude", "skills", "pdf");
    mock.enqueue(
      reply.toolCalls([{ name: "Skill", input: { skill: "pdf" } }]),
      reply.toolCalls([{ name: "Read", input: { file_path: path.join(dir, "scripts", "fill.py") } }]),
      reply.text("done"),
    );
    const messages = await collect(query({ prompt: "fill the form", options: options() }));
    expect(resultOf(messages).subtype).toBe("success");
    const [skill, read] = toolResults(messages);
    expect(skill).toContain("SECRET-BODY-MARKER");
    expect(skill).toContain(dir);
    expect(read).toContain("filled");
  });

  it("a Skill(pdf) deny rule refuses the call; the body is never sent", async () => {
    writeProject({ permissions: { deny: ["Skill(pdf)"] } });
    mock.enqueue(reply.toolCalls([{ name: "Skill", input: { skill: "pdf" } }]), reply.text("ok"));
    const messages = await collect(query({ prompt: "fill", options: options() }));
    expect(toolResults(messages)[0]).not.toContain("SECRET-BODY-MARKER");
    expect(JSON.stringify(mock.requests[1].body)).not.toContain("SECRET-BODY-MARKER");
    const result = resultOf(messages) as { permission_denials: Array<{ tool_name: string }> };
    expect(result.permission_denials.map((d) => d.tool_name)).toEqual(["Skill"]);
  });

  it("a used skill's allowed-tools approve the calls they name, never one a deny rule refuses", async () => {
    writeProject({ permissions: { deny: ["Bash(rm:*)"] } });
    fs.writeFileSync(path.join(cwd, "victim.txt"), "keep");
    const mkdir = { name: "Bash", input: { command: "mkdir made-dir" } };
    mock.enqueue(
      // Before the skill is used, mkdir would ask (and no host answers: denied).
      reply.toolCalls([mkdir]),
      reply.toolCalls([{ name: "Skill", input: { skill: "pdf" } }]),
      reply.toolCalls([{ name: "Bash", input: { command: "mkdir made-dir2" } }]),
      reply.toolCalls([{ name: "Bash", input: { command: "rm victim.txt" } }]),
      reply.text("ok"),
    );
    const messages = await collect(query({ prompt: "go", options: options() }));
    expect(resultOf(messages).subtype).toBe("success");
    expect(fs.existsSync(path.join(cwd, "made-dir"))).toBe(false);
    expect(fs.existsSync(path.join(cwd, "made-dir2"))).toBe(true);
    expect(fs.readFileSync(path.join(cwd, "victim.txt"), "utf8")).toBe("keep");
  });

  it("the skills option filters what is offered; a hidden skill is refused; no skills, no Skill tool", async () => {
    writeProject();
    mock.enqueue(
      reply.toolCalls([{ name: "Skill", input: { skill: "pdf" } }]),
      reply.text("ok"),
      reply.text("ok"),
    );
    const messages = await collect(query({ prompt: "x", options: options({ skills: ["sloppy"] }) }));
    expect(skillTool()?.description).not.toContain("pdf");
    expect(toolResults(messages)[0]).not.toContain("SECRET-BODY-MARKER");
    await collect(query({ prompt: "y", options: options({ settingSources: [] }) }));
    expect(skillTool(2)).toBeUndefined();
  });

  it("figure: the prompt characters 50 installed skills add (the Skill tool), about chars/4 tokens", async () => {
    for (let i = 0; i < 50; i++) {
      write(
        path.join(cwd, ".claude", "skills", `skill-${i}`, "SKILL.md"),
        `---\nname: skill-${i}\ndescription: Handles task family ${i}: converts, checks and reports on files of kind ${i} when the user asks\n---\n${"Long instructions. ".repeat(200)}\n`,
      );
    }
    mock.enqueue(reply.text("ok"), reply.text("ok"));
    await collect(query({ prompt: "x", options: options() }));
    await collect(query({ prompt: "x", options: options({ settingSources: [] }) }));
    const added = JSON.stringify(mock.requests[0].body).length - JSON.stringify(mock.requests[1].body).length;
    console.log(`50 skills add ${added} prompt characters (~${Math.round(added / 4)} tokens)`);
    expect(added).toBeGreaterThan(0);
    // One line per skill, never the bodies (200 × 19 characters each).
    expect(added).toBeLessThan(50 * 200);
  });
});
