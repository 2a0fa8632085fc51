/**
 * The Bash analysis through the real permission engine: what runs without asking in default and
 * acceptEdits, and every class of escape that got through the old splitter and read-only list
 * (writing options and operands, programs that run programs, git config, shell expansions, paths
 * outside the scope). "ask" means canUseTool was called.
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
import { decideBash } from "./decide-bash.js";

let root: string;
let project: string;
let outside: string;

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "goat-shell-")));
  project = path.join(root, "project");
  outside = path.join(root, "outside");
  fs.mkdirSync(path.join(project, "src"), { recursive: true });
  fs.mkdirSync(path.join(project, "dir"));
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "secret.txt"), "s3cret");
  fs.writeFileSync(path.join(project, "src", "a.ts"), "export {}\n");
  fs.writeFileSync(path.join(project, "package.json"), "{}\n");
  fs.symlinkSync(outside, path.join(project, "link"));
  fs.symlinkSync(path.join(outside, "planted.ts"), path.join(project, "dir", "a.ts"));
  execFileSync("git", ["init", "-q", project]);
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function decide(
  command: string,
  mode: PermissionMode = "default",
  options: Partial<PermissionEngineOptions> = {},
): Promise<"allow" | "ask" | "deny"> {
  return decideBash(project, command, mode, options);
}

describe("runs without asking", () => {
  it.each([
    "ls -la",
    "cat src/a.ts | grep export",
    "git status",
    "git --no-pager log --oneline -n 3",
    "git diff HEAD --stat",
    "find . -name '*.ts' -not -path './node_modules/*'",
    "rg -n export src --type ts",
    "sed -n '1,5p' src/a.ts",
    "sed -E 's/export/import/g; /^$/d' src/a.ts",
    "head -n 3 src/a.ts && tail -5 src/a.ts",
    "sort src/a.ts | uniq -c | sort -rn",
    "cd src && ls && cat a.ts",
    'echo "a && b"',
    "wc -l < src/a.ts",
    "jq '.name' package.json",
    "cat <<'EOF'\n$(rm -rf /)\nEOF",
    "grep -rn TODO . 2>/dev/null || true",
    "echo hi >/dev/null 2>&1",
  ])("%s", async (command) => {
    expect(await decide(command)).toBe("allow");
  });
});

describe("asks in default and acceptEdits", () => {
  it.each([
    // operands and options that write or run
    ["uniq src/a.ts out.txt", "uniq's second operand is an output file"],
    ["rg --pre=sh export", "rg --pre runs a program"],
    ["rg --pre sh export src", "rg --pre runs a program"],
    ["rg -L export", "rg -L follows symlinks out"],
    ["sort -o out.txt src/a.ts", "sort -o writes"],
    ["sort -oout.txt src/a.ts", "sort -o bundled"],
    ["sort --output=out.txt src/a.ts", "sort --output"],
    ["sort --compress-program=sh src/a.ts", "runs a program"],
    ["tree -o out.txt", "tree -o writes"],
    ["find . -exec rm {} ;", "find -exec"],
    ["find . -execdir id ;", "find -execdir"],
    ["find . -fprint out.txt", "find -fprint"],
    ["find . -delete", "find -delete"],
    ["find -L . -name x", "find -L follows symlinks"],
    ["sed 'w out.txt' src/a.ts", "sed w"],
    ["sed -n '1w out.txt' src/a.ts", "sed w with an address"],
    ["sed 's/a/b/w out.txt' src/a.ts", "sed s///w"],
    ["sed 's/a/id/e' src/a.ts", "sed s///e"],
    ["sed 'e id' src/a.ts", "sed e"],
    ["sed '1r /etc/passwd' src/a.ts", "sed r reads another file"],
    ["sed -f script.sed src/a.ts", "sed -f hides the script"],
    ["awk '{system(\"id\")}' src/a.ts", "awk system()"],
    ["awk '{print > \"out\"}' src/a.ts", "awk print >"],
    ["echo x | xargs touch", "xargs runs a program"],
    ["env rm -rf src", "env runs a program"],
    ["env", "env prints secrets"],
    ["less src/a.ts", "pager"],
    ["LESSOPEN='|id %s' less src/a.ts", "LESSOPEN"],
    ["tail -f src/a.ts", "never ends"],
    ["date -s 2020-01-01", "sets the clock"],
    ["hostname evil", "sets the hostname"],
    ["sha256sum -c sums.txt", "reads files named in a file"],
    ["grep -R x .", "grep -R follows symlinks out"],
    ["ls -L link", "ls -L"],
    ["jq -n env", "jq env"],
    ["jq -n '$ENV.HOME'", "jq $ENV"],
    // git: global options, writing or running flags, refs changes
    ["git -c core.pager=id log", "git -c"],
    ["git -C .. status", "git -C"],
    ["git --git-dir=x status", "git --git-dir"],
    ["git diff --output=out.txt", "git diff --output"],
    ["git diff --no-index ../outside/secret.txt /dev/null", "git diff --no-index"],
    ["git log --ext-diff -p", "git --ext-diff"],
    ["git push", "git push"],
    ["git branch -D main", "git branch -D"],
    ["git status ../outside", "git pathspec outside"],
    // shell expansions the old splitter read literally
    ["touch {../outside/x,y}", "brace expansion"],
    ["cat {../outside/secret.txt,src/a.ts}", "brace expansion"],
    ["echo ${x:-$(id)}", "${x:-$(cmd)}"],
    ["cat <<EOF\n$(rm -rf src)\nEOF", "unquoted heredoc with $(…)"],
    ["cat <<EOF\n$AWS_SECRET_ACCESS_KEY\nEOF", "unquoted heredoc with a variable"],
    ["cat <<< $AWS_SECRET_ACCESS_KEY", "here-string with a variable"],
    ["cat <(id)", "process substitution"],
    ["echo $((x[$(id)]))", "arithmetic expansion"],
    ["x='a[$(id)]'; echo $((x))", "arithmetic on a variable"],
    ["cat $'../outside/secret.txt'", "ANSI-C quoting"],
    ["echo `id`", "backticks"],
    ["cat *", "a glob may expand to an option"],
    ["cat src/*.ts", "a glob"],
    ["cat ~root/.profile", "~user"],
    // paths outside the scope, in every spelling
    ["cat ../outside/secret.txt", ".."],
    ["cat /etc/passwd", "absolute"],
    ["cat //etc//passwd", "//"],
    ["cat link/secret.txt", "symlinked directory"],
    ["ls link/", "symlinked directory"],
    ["cat /proc/self/cwd/../outside/secret.txt", "/proc/self/cwd"],
    ["cat < ../outside/secret.txt", "input redirection"],
    ["cat ~/.bashrc", "~"],
    ["cat $HOME/.bashrc", "$HOME"],
    ["cd .. && cat outside/secret.txt", "cd out of the scope"],
    ["cd /tmp && ls", "cd out of the scope"],
    ["ls; cd ..; ls", "a cd that is not leading"],
    ["(cd .. && ls)", "cd in a subshell"],
    ["PATH=/tmp ls", "an assignment before the command"],
    ["PATH=/tmp; ls", "an assignment statement"],
    ["./script.sh", "a program run by path"],
    ["npm test", "an unknown program"],
    ["for f in a b; do cat $f; done", "a loop"],
    ["ls() { rm -rf src; }; ls", "a function"],
    ["cat src/a.ts\u0000", "a NUL byte"],
    ["echo 'unclosed", "unparseable"],
  ])("%s (%s)", async (command) => {
    expect(await decide(command), "default").toBe("ask");
    expect(await decide(command, "acceptEdits"), "acceptEdits").toBe("ask");
  });
});

describe("writes", () => {
  it("a write in scope asks in default and runs in acceptEdits", async () => {
    for (const command of [
      "echo hi > notes.txt",
      "mkdir -p build && touch build/x",
      "sed -i 's/a/b/' src/a.ts",
    ]) {
      expect(await decide(command), command).toBe("ask");
      expect(await decide(command, "acceptEdits"), command).toBe("allow");
    }
  });

  it("writes outside the scope ask even in acceptEdits, however they are spelled", async () => {
    for (const command of [
      "cat src/a.ts > ../outside/x",
      "cp src/a.ts ../outside/",
      "cp src/a.ts dir", // dir/a.ts is a symlink to a file outside
      "mv src/a.ts link/",
      "touch link/new",
      "rm -rf ../outside",
      "sed -i 's/a/b/' ../outside/secret.txt",
      "mkdir ~/x",
      `touch ${"x/".repeat(2000)}y`.replace(/^touch /, "touch ../outside/"),
    ]) {
      expect(await decide(command, "acceptEdits"), command).toBe("ask");
    }
  });
});

describe("git and the repository's config", () => {
  it("git asks once the repository's config can run a program", async () => {
    const config = path.join(project, ".git", "config");
    const original = fs.readFileSync(config, "utf8");
    try {
      for (const line of [
        "[core]\n\tfsmonitor = touch pwned",
        "[core]\n\thooksPath = hooks",
        "[core]\n\tpager = id",
        "[diff]\n\texternal = ./x",
        '[diff "bin"]\n\ttextconv = ./x',
        '[filter "x"]\n\tclean = ./x',
        "[include]\n\tpath = ../cfg",
      ]) {
        fs.writeFileSync(config, `${original}\n${line}\n`);
        expect(await decide("git status"), line).toBe("ask");
      }
    } finally {
      fs.writeFileSync(config, original);
    }
    expect(await decide("git status")).toBe("allow");
  });

  it("a bare-looking directory in scope is never taken for a repository", async () => {
    const bare = path.join(project, "..", "bare-project");
    fs.mkdirSync(path.join(bare, "objects"), { recursive: true });
    fs.mkdirSync(path.join(bare, "refs"));
    fs.writeFileSync(path.join(bare, "HEAD"), "ref: refs/heads/main\n");
    fs.writeFileSync(path.join(bare, "config"), "[core]\n\tfsmonitor = touch pwned\n");
    const d = await decideIn(bare, "git status");
    expect(d).toBe("ask");
  });

  it("git asks when the repository's top is outside the allowed directories", async () => {
    expect(await decideIn(path.join(project, "src"), "git log -p")).toBe("ask");
  });
});

async function decideIn(cwd: string, command: string): Promise<string> {
  let asked = false;
  const engine = createPermissionEngine({
    cwd,
    canUseTool: async () => {
      asked = true;
      return { behavior: "deny", message: "no" };
    },
  });
  const d = await engine.decide({
    toolName: "Bash",
    input: { command },
    sideEffect: "mutating",
    toolUseID: "t",
    signal: new AbortController().signal,
  });
  return asked ? "ask" : d.behavior;
}

describe("the program search path", () => {
  it("a program the agent could have put in a PATH directory it can write asks", async () => {
    const bin = path.join(project, "node_modules", ".bin");
    fs.mkdirSync(bin, { recursive: true });
    const saved = process.env.PATH;
    try {
      process.env.PATH = `${bin}${path.delimiter}${saved}`;
      expect(await decide("ls")).toBe("allow"); // no \`ls\` there
      fs.writeFileSync(path.join(bin, "ls"), "#!/bin/sh\ntouch pwned\n", { mode: 0o755 });
      expect(await decide("ls")).toBe("ask");
      process.env.PATH = `node_modules/.bin${path.delimiter}${saved}`;
      expect(await decide("ls")).toBe("ask");
    } finally {
      process.env.PATH = saved;
      fs.rmSync(path.join(project, "node_modules"), { recursive: true, force: true });
    }
    expect(await decide("ls")).toBe("allow");
  });
});

describe("modes and rules on top of the analysis", () => {
  it("unknown is denied in dontAsk and allowed only in bypassPermissions", async () => {
    expect(await decide("echo ${x:-$(id)}", "dontAsk")).toBe("deny");
    expect(await decide("echo ${x:-$(id)}", "bypassPermissions")).toBe("allow");
  });

  it("prefix rules still allow their commands, but not code hidden from them", async () => {
    const allowedTools = ["Bash(npm test:*)"];
    expect(await decide("npm test -- --run", "default", { allowedTools })).toBe("allow");
    expect(await decide("npm test && ls src", "default", { allowedTools })).toBe("allow");
    expect(await decide("npm test $((x))", "default", { allowedTools })).toBe("ask");
    expect(await decide("x='a[$(id)]'; npm test", "default", { allowedTools })).toBe("ask");
    expect(await decide("npm test; rm -rf src", "default", { allowedTools })).toBe("ask");
    expect(await decide("npm test $(rm -rf src)", "default", { allowedTools })).toBe("ask");
  });
});
