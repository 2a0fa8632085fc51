/**
 * The Bash analysis as a closed world (issue #29, part 2): each class of line an outside probe got
 * through the real permission engine without canUseTool, so every "ask" here was a denial there.
 * Words bash evaluates as arithmetic or names, heredoc bodies, options that read lists of files,
 * secrets, symlinks folded lexically, one part of a line changing what a later part touches,
 * protected names created indirectly, removing the project itself, and flags accepted too loosely.
 * Each line must ask in default and in acceptEdits; the typical lines at the end still run.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPermissionEngine,
  type PermissionEngineOptions,
  type PermissionMode,
} from "../../src/permissions/index.js";
import { resolveLikeKernel } from "../../src/permissions/kernel-path.js";
import { decideBash } from "./decide-bash.js";

let root: string;
let project: string;
let home: string;
const savedHome = process.env.HOME;

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-closed-")));
  project = path.join(root, "project");
  home = path.join(root, "home");
  const outside = path.join(root, "outside");
  fs.mkdirSync(path.join(project, "src"), { recursive: true });
  fs.mkdirSync(path.join(project, "deep", "sub"), { recursive: true });
  fs.mkdirSync(path.join(outside, "sub"), { recursive: true });
  fs.writeFileSync(path.join(outside, "secret.txt"), "s3cret");
  fs.writeFileSync(path.join(project, "src", "a.ts"), "export {}\n");
  fs.writeFileSync(path.join(project, ".bash"), "x\n");
  // A link to a directory outside: `dirlink/..` is `outside` to the kernel, `project` lexically.
  fs.symlinkSync(path.join(outside, "sub"), path.join(project, "dirlink"));
  // A relative link that stays inside where it is, and points out once copied one level up.
  fs.symlinkSync("../..", path.join(project, "deep", "sub", "up"));
  execFileSync("git", ["init", "-q", project]);
  for (const dir of [".ssh", ".aws"]) fs.mkdirSync(path.join(home, dir), { recursive: true });
  fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), "KEY");
  fs.writeFileSync(path.join(home, ".aws", "credentials"), "KEY");
  fs.writeFileSync(path.join(home, ".netrc"), "KEY");
  process.env.HOME = home;
});

afterAll(() => {
  process.env.HOME = savedHome;
  fs.rmSync(root, { recursive: true, force: true });
});

function decide(
  command: string,
  mode: PermissionMode = "default",
  options: Partial<PermissionEngineOptions> = {},
): Promise<"allow" | "ask" | "deny"> {
  return decideBash(project, command, mode, options);
}

const asksInBothModes = async (command: string, options: Partial<PermissionEngineOptions> = {}) => {
  expect(await decide(command, "default", options), `default: ${command}`).toBe("ask");
  expect(await decide(command, "acceptEdits", options), `acceptEdits: ${command}`).toBe("ask");
};

describe("words bash evaluates as names or arithmetic", () => {
  it.each([
    "printf -v 'x[$(id)]' y",
    "printf -v'x[$(id)]' y",
    "printf -v x y",
    "printf -v PATH /tmp; ls",
    "printf -vPATH /tmp && ls",
    "(( a[$(id)] ))",
    "echo $(( a[$(id)] ))",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell line, not a template
    "echo ${a[$(id)]}",
    "declare 'a[$(id)]=1'",
    "HOME=/tmp; cat ~/x",
    "export HOME=/tmp && ls",
  ])("%s", async (command) => {
    await asksInBothModes(command);
  });

  it("a rule for a builtin that takes a name does not cover a subscript in it", async () => {
    for (const [command, rule] of [
      ["test -v 'a[$(id)]'", "Bash(test:*)"],
      ["[ -v 'a[$(id)]' ]", "Bash([:*)"],
      ["read 'a[$(id)]' < /dev/null", "Bash(read:*)"],
      ["unset 'a[$(id)]'", "Bash(unset:*)"],
      ["mapfile -C id arr < src/a.ts", "Bash(mapfile:*)"],
      ["printf -v 'a[$(id)]' x", "Bash(printf:*)"],
    ]) {
      expect(await decide(command, "default", { allowedTools: [rule] }), command).toBe("ask");
    }
  });

  it("a substring offset names a variable that is evaluated as arithmetic", async () => {
    const allowedTools = ["Bash(echo:*)"];
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell line, not a template
    expect(await decide("echo ${x:y}", "default", { allowedTools })).toBe("ask");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell line, not a template
    expect(await decide("echo ${x:0:n}", "default", { allowedTools })).toBe("ask");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell line, not a template
    expect(await decide("echo ${x:1:2} ${x:-a} ${x: -1}", "default", { allowedTools })).toBe("allow");
  });

  it("a substitution the grammar leaves as text inside an expansion is never covered by a rule", async () => {
    const allowedTools = ["Bash(echo:*)"];
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell lines, not templates
    const lines = ["echo ${x:-`id`}", "echo ${x^^$(id)}", "echo ${x/`id`/y}"];
    for (const command of lines) {
      expect(await decide(command, "default", { allowedTools }), command).toBe("ask");
    }
  });

  it("a `{name}` before a redirection assigns the variable (`{PATH}>x` sets PATH)", async () => {
    await asksInBothModes("cat src/a.ts {PATH}>/dev/null; ls");
    await asksInBothModes("cat {fd}>out src/a.ts");
  });

  it("a part that sets variables makes later parts unprovable, even with a rule for it", async () => {
    const allowedTools = ["Bash(printf:*)"];
    expect(await decide("printf -v PATH /tmp; ls", "default", { allowedTools })).toBe("ask");
  });
});

describe("heredoc bodies", () => {
  it.each([
    "cat <<-EOF\n\t$(id)\n\tEOF",
    "cat <<-EOF\n\t`id`\n\tEOF",
    "cat <<-EOF\n\t$HOME\n\tEOF",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell line, not a template
    "cat <<-EOF\n\t${x:-$(id)}\n\tEOF",
    "cat <<EOF\n$(id)\nEOF",
    "cat <<EOF | cat\n`id`\nEOF",
  ])("%j asks", async (command) => {
    await asksInBothModes(command);
  });

  it.each([
    "cat <<'EOF'\n$(id)\nEOF",
    'cat <<"EOF"\n$(id) `id`\nEOF',
    "cat <<\\EOF\n$(id)\nEOF",
    "cat <<-'EOF'\n\t$(id)\n\tEOF",
    "cat <<EOF\nplain text\nEOF",
  ])("%j is literal and runs", async (command) => {
    expect(await decide(command)).toBe("allow");
  });
});

describe("options that name lists of files", () => {
  it.each([
    "wc --files0-from=list.txt",
    "wc -l --files0-from=-",
    "sort --files0-from=list.txt",
    "du --files0-from list.txt",
    "wc --files0=-",
    "sort --files0-f=-",
    "sort --comp=sh src/a.ts",
    "sort --out=x src/a.ts",
    "ls --derefer -R dirlink",
    "ls --dereference -R dirlink",
    "file -f list.txt",
    "tar -T list.txt -cf out.tar",
    "xargs cat < list.txt",
    "find -O /etc -name x",
  ])("%s", async (command) => {
    await asksInBothModes(command);
  });
});

describe("secrets", () => {
  it.each([
    "jq -n '$ ENV'",
    "jq -n '$\tENV.HOME'",
    "jq -n '$ # hidden\nENV'",
    "jq -n '$ENV'",
    "jq -n 'env'",
    "jq -n '{} | env.HOME'",
    "jq -n '$__prog_args'",
    "jq -n '$ __prog_args'",
    "printenv",
    "env",
    "cat /proc/self/environ",
    "cat /proc/1/environ",
    "ls /proc/self/",
  ])("%s", async (command) => {
    await asksInBothModes(command);
  });

  it("key files under the home directory ask even when the home directory is in scope", async () => {
    for (const command of [
      "cat ~/.ssh/id_rsa",
      "cat ~/.aws/credentials",
      "cat ~/.netrc",
      "grep -r KEY ~",
      "head ../home/.ssh/id_rsa",
      "cat ~/.bash_history",
    ]) {
      await asksInBothModes(command, { additionalDirectories: [home] });
    }
  });
});

describe("symlinks are followed the way the kernel does", () => {
  it.each([
    "cat dirlink/../secret.txt",
    "ls dirlink/..",
    "grep -r s3cret dirlink/..",
    "echo x > dirlink/../pwned",
    "touch dirlink/../pwned",
    "cp src/a.ts dirlink/../copy.ts",
    "cat < dirlink/../secret.txt",
    "cd dirlink/.. && cat secret.txt",
  ])("%s", async (command) => {
    await asksInBothModes(command);
  });

  it("a path that only looks like it climbs through a link in scope still runs", async () => {
    expect(await decide("cat deep/sub/up/src/a.ts")).toBe("allow");
    expect(await decide("cat deep/sub/../sub/up/src/a.ts")).toBe("allow");
  });
});

describe("file tools' paths are walked the way the tool's own program will", () => {
  it("Grep and Glob hand `dirlink/..` to ripgrep and the file system as written, so it is judged unfolded", async () => {
    const engine = createPermissionEngine({
      cwd: project,
      mode: "default",
      canUseTool: async () => ({ behavior: "deny", message: "no" }),
    });
    const request = (toolName: string, input: Record<string, unknown>) => ({
      toolName,
      input,
      sideEffect: "none" as const,
      toolUseID: "t",
      signal: new AbortController().signal,
    });
    const through = `${project}/dirlink/..`;
    expect((await engine.decide(request("Grep", { pattern: "s3cret", path: through }))).behavior).toBe(
      "deny",
    );
    expect((await engine.decide(request("Glob", { pattern: "*", path: through }))).behavior).toBe("deny");
    expect((await engine.decide(request("Grep", { pattern: "x", path: `${project}/src/..` }))).behavior).toBe(
      "allow",
    );
  });
});

describe("one part changing what a later part touches", () => {
  it.each([
    "cp -P deep/sub/up . && cat up/outside/secret.txt",
    "cp -a deep/sub/up . ; echo x > up/outside/pwned",
    "cp -r deep/sub x && cat x/up/../outside/secret.txt",
    "mv deep/sub/up . && cat up/outside/secret.txt",
    "mv deep/sub/up new && touch new/outside/pwned",
    "cat up/outside/secret.txt | cp -P deep/sub/up .",
  ])("%s", async (command) => {
    await asksInBothModes(command);
  });

  it("a write before a program runs asks when PATH has a directory the agent can write", async () => {
    const saved = process.env.PATH;
    try {
      process.env.PATH = `${path.join(project, "bin")}${path.delimiter}${saved}`;
      expect(await decide("ls", "acceptEdits")).toBe("allow"); // nothing named ls there yet
      for (const command of [
        "cp src/a.ts bin/ls && ls",
        "mkdir -p bin; echo x > bin/cat; cat src/a.ts",
        "ls | cp src/a.ts bin/ls",
      ]) {
        expect(await decide(command, "acceptEdits"), command).toBe("ask");
      }
      process.env.PATH = saved;
      expect(await decide("mkdir -p bin; echo x > bin/cat; cat src/a.ts", "acceptEdits")).toBe("allow");
    } finally {
      process.env.PATH = saved;
    }
  });

  it("a copy on its own, or after the parts it could affect, still runs in acceptEdits", async () => {
    expect(await decide("cp src/a.ts src/b.ts", "acceptEdits")).toBe("allow");
    expect(await decide("mkdir -p build && cp src/a.ts build/", "acceptEdits")).toBe("allow");
  });
});

describe("protected names created indirectly", () => {
  it.each([
    "cp -b -S rc src/a.ts .bash",
    "cp -bSrc src/a.ts .bash",
    "mv --backup --suffix=rc src/a.ts .bash",
    "mv --suffix rc -b src/a.ts .bash",
    "cp --backup=simple src/a.ts .bash",
    "sed -irc 's/x/y/' .bash",
    "sed -i'.claude/*' 's/x/y/' src/a.ts",
    "sed --in-place=rc 's/x/y/' .bash",
    "sed -i'/../../x' 's/x/y/' src/a.ts",
    "cp src/a.ts .mcp.json",
    "mv src .goat",
    "cp -r src -T .claude",
    "cp -t .claude src/a.ts",
  ])("%s", async (command) => {
    await asksInBothModes(command);
  });
});

describe("where a copy lands", () => {
  it("a source ending in `..` lands in the target's parent", async () => {
    await asksInBothModes("cp -r deep/sub/.. .");
    await asksInBothModes("cp -r deep/sub/.. src/");
  });
});

describe("the kernel's walk of a path", () => {
  it("follows each link before the next `..`, and records where links in the way led", () => {
    const walked = resolveLikeKernel("dirlink/../secret.txt", project);
    expect(walked.lexical).toBe(path.join(project, "secret.txt"));
    expect(walked.real).toBe(path.join(root, "outside", "secret.txt"));
    expect(walked.links).toEqual([
      { at: path.join(project, "dirlink"), to: path.join(root, "outside", "sub") },
    ]);
  });

  it("takes missing components as written, follows dangling links, and stops at a loop", () => {
    expect(resolveLikeKernel("new/../newer/x", project).real).toBe(path.join(project, "newer", "x"));
    const loopDir = fs.mkdtempSync(path.join(root, "loop-"));
    fs.symlinkSync("b", path.join(loopDir, "a"));
    fs.symlinkSync("a", path.join(loopDir, "b"));
    fs.symlinkSync(path.join(root, "outside", "planted"), path.join(loopDir, "dangling"));
    expect(resolveLikeKernel("a/x", loopDir).loop).toBe(true);
    expect(resolveLikeKernel("dangling", loopDir).real).toBe(path.join(root, "outside", "planted"));
  });
});

describe("a sed backup whose name is written out", () => {
  it("is judged like the file it copies", async () => {
    expect(await decide("sed -i.bak 's/x/y/' src/a.ts", "acceptEdits")).toBe("allow");
    expect(await decide("sed --in-place=.orig 's/x/y/' src/a.ts", "acceptEdits")).toBe("allow");
  });
});

describe("removing an allowed directory itself", () => {
  it.each([
    "rm -rf .",
    "rm -rf ../project",
    'rm -rf "$PWD"',
    "rm -r src/..",
    "rmdir ../project",
    "mv . ../elsewhere",
    "rm -rf ..",
  ])("%s", async (command) => {
    await asksInBothModes(command);
  });

  it("removing something inside still runs in acceptEdits", async () => {
    expect(await decide("rm -rf build", "acceptEdits")).toBe("allow");
  });
});

describe("found by the differential fuzzer after the fixes above", () => {
  // tree-sitter-bash hangs `> out.txt` written after a heredoc's delimiter inside the heredoc's node.
  it.each([
    "sort <<'EOF' > out.txt\nline\nEOF",
    "tac <<-'EOF' > out.txt\n\tline\nEOF",
    "sed -n p <<\\EOF > out.txt > .git/config\nline\nEOF",
    "sort << EOF >> ../outside/victim.txt\nline\nEOF",
  ])("a redirection after a heredoc is judged: %s", async (command) => {
    expect(await decide(command, "default")).toBe("ask");
  });

  // The grammar pairs bodies and delimiters wrongly here; bash would expand the secret or run printf.
  it.each([
    "diff - notes.txt <<-EOF | cat || uniq <<'EOF'\n\tline\n\t$AWS_SECRET_ACCESS_KEY\n\tEOF\nline\nEOF",
    "cat <<'EOF' | wc -l | head -n 5 << EOF | cat\nline\nEOF\n$((a[`id >&2`]))\nEOF",
    'grep -v zzz <<E"O"F | cat\nline\nEOF\nprintf \'%s\' "$AWS_SECRET_ACCESS_KEY"',
  ])("a heredoc the grammar may misread asks: %s", async (command) => {
    await asksInBothModes(command);
  });

  it("a redirection after a heredoc still runs where writing is allowed", async () => {
    expect(await decide("sort <<'EOF' > out.txt\nb\na\nEOF", "acceptEdits")).toBe("allow");
    expect(await decide("sort <<'EOF' > ../outside/x.txt\nb\nEOF", "acceptEdits")).toBe("ask");
  });

  it("copying or moving a tree that holds protected names asks", async () => {
    const templates = path.join(project, "templates");
    fs.mkdirSync(path.join(templates, "nested", ".claude"), { recursive: true });
    fs.writeFileSync(path.join(templates, "nested", ".claude", "settings.json"), "{}");
    fs.writeFileSync(path.join(templates, ".envrc"), "x");
    fs.mkdirSync(path.join(project, "plain", "sub"), { recursive: true });
    fs.writeFileSync(path.join(project, "plain", "sub", "f.txt"), "x");
    try {
      for (const command of [
        "cp -r templates copy",
        "mv templates copy",
        "cp -r templates/. src",
        "cp -R templates src/",
      ])
        expect(await decide(command, "acceptEdits"), command).toBe("ask");
      expect(await decide("cp -r plain copy", "acceptEdits")).toBe("allow");
    } finally {
      fs.rmSync(templates, { recursive: true, force: true });
      fs.rmSync(path.join(project, "plain"), { recursive: true, force: true });
    }
  });
});

describe("typical lines still run", () => {
  it.each([
    "ls -la",
    "git status",
    "grep -rn foo src",
    "cat src/a.ts | head",
    "find . -name x",
    "wc -l src/a.ts",
    "sort src/a.ts | uniq -c",
    "jq '.env' package.json",
    "printf '%s\\n' hello",
    "du -sh src",
  ])("%s", async (command) => {
    expect(await decide(command)).toBe("allow");
  });
});
