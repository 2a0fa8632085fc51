import { describe, expect, it } from "vitest";
import { splitBashCommand } from "../../src/permissions/bash-split.js";

async function texts(command: string): Promise<string[]> {
  const split = await splitBashCommand(command);
  if (!split.ok) throw new Error(`unparseable: ${split.reason}`);
  return split.commands.map((c) => c.text);
}

describe("splitBashCommand", () => {
  it("splits on &&, ||, ;, |, & and newlines", async () => {
    expect(await texts("npm test && rm -rf /")).toEqual(["npm test", "rm -rf /"]);
    expect(await texts("a || b; c | d & e\nf")).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(await texts("a |& b")).toEqual(["a", "b"]);
  });

  it("keeps operators inside quotes as one command", async () => {
    expect(await texts('echo "a && b"')).toEqual(['echo "a && b"']);
    expect(await texts("echo 'x; rm -rf /' | wc -l")).toEqual(["echo 'x; rm -rf /'", "wc -l"]);
    const split = await splitBashCommand('echo "a && b"');
    expect(split.ok && split.commands[0].argv).toEqual(["echo", "a && b"]);
  });

  it("finds commands inside subshells, $( ), backticks and process substitution", async () => {
    expect(await texts("(cd /tmp && rm x)")).toEqual(["cd /tmp", "rm x"]);
    expect(await texts("echo $(rm -rf /)")).toContain("rm -rf /");
    expect(await texts("echo `touch f`")).toContain("touch f");
    expect(await texts('echo "now $(date) and `id`"')).toEqual(expect.arrayContaining(["date", "id"]));
    expect(await texts("diff <(ls a) <(ls b)")).toEqual(expect.arrayContaining(["ls a", "ls b"]));
  });

  it("records files written by redirection but not fd copies or /dev/null", async () => {
    const split = await splitBashCommand("echo hi > out.txt 2>&1; cat x 2>/dev/null; ls >> log &> all");
    expect(split.ok).toBe(true);
    if (!split.ok) return;
    expect(split.commands.map((c) => c.writtenFiles)).toEqual([["out.txt"], [], ["log", "all"]]);
    expect(split.commands[0].argv).toEqual(["echo", "hi"]);
  });

  it("separates leading variable assignments from the command", async () => {
    const split = await splitBashCommand("FOO=1 BAR='a b' npm test");
    expect(split.ok && split.commands[0]).toMatchObject({ commandText: "npm test", argv: ["npm", "test"] });
  });

  it("skips heredoc bodies and comments", async () => {
    expect(await texts("cat <<EOF\nrm -rf /\nEOF\nls # && rm x")).toEqual(["cat", "ls"]);
  });

  it("strips control keywords so the real commands are checked", async () => {
    expect(await texts("if true; then rm x; fi")).toEqual(["true", "rm x"]);
  });

  it("reports lines it cannot follow", async () => {
    expect((await splitBashCommand('echo "unclosed')).ok).toBe(false);
    expect((await splitBashCommand("echo $(ls")).ok).toBe(false);
    expect((await splitBashCommand("echo a)")).ok).toBe(false);
  });
});
