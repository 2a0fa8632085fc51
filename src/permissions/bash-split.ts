/**
 * Reads a bash command line into the simple commands it would run, with a real bash grammar (see
 * shell-parser): `&&`, `||`, `;`, `|`, `&`, subshells, groups, loops, functions, and the commands
 * hidden inside `$( )`, backticks, `<( )`, `${x:-$(…)}` and unquoted heredoc bodies. Each word is
 * reduced to the literal string the shell would pass, or marked as something the shell expands
 * (variables, globs, braces, `~user`, `$'…'`, arithmetic), so the permission layer can tell a line
 * it understands from one it does not. Anything the grammar cannot read, or reads with an error, is
 * reported as unparseable; constructs that may run code no rule can see (arithmetic on variables,
 * `[[ ]]`, `${!x}`) make the whole line opaque.
 */
import { loadShellParser, parseShell, type ShellNode } from "./shell-parser.js";
import {
  arithmeticHazard,
  expansionHazard,
  literalWord,
  type ShellWord,
  WordBuilder,
  type WordSink,
} from "./shell-words.js";

export type { ShellWord } from "./shell-words.js";

/** A redirection of a simple command (or of a compound one, then on a command with no words). */
export interface ShellRedirect {
  /** `>`, `>>`, `&>`, `>|`, `<`, `>&`, `<<`, `<<<`… */
  op: string;
  /** `read` and `write` name a file in `target`; `dup`/`close` copy or close a descriptor; `input` is a heredoc or here-string. */
  kind: "read" | "write" | "dup" | "close" | "input";
  target?: ShellWord;
}

/** One simple command, e.g. `FOO=1 git log -n 3 > out.txt`. */
export interface SimpleCommand {
  /** Words as written (quotes kept), without redirections: `FOO=1 git log -n 3`. Used for rule matching. */
  text: string;
  /** `text` without leading `VAR=value` assignments: `git log -n 3`. */
  commandText: string;
  /** Word values without leading assignments: `["git", "log", "-n", "3"]`. */
  argv: string[];
  /** Files written by `>`, `>>`, `&>`, `>|`, `<>` or `>&file` (not `/dev/null`, not `2>&1`-style fd copies). */
  writtenFiles: string[];
  /** The program and its arguments. */
  words: ShellWord[];
  /** Leading `VAR=value` assignments (a command may be only these). */
  assignments: ShellWord[];
  redirects: ShellRedirect[];
  /** True for the `cd DIR` that opens a line (`cd DIR && …`): later commands' paths are relative to DIR. */
  leadingCd?: boolean;
  /** The literal directory a leading `cd` moved to, for the commands after it. */
  cdTarget?: string;
  /** Why this command cannot be vouched for by analysis even if its program is known (a rule still may). */
  unproven?: string;
}

/** The outcome of reading a line: its commands, or why it could not be read. */
export type BashSplit =
  | {
      ok: true;
      commands: SimpleCommand[];
      /** A construct that may run code no part shows (arithmetic on variables, `[[ ]]`, `${!x}`): only a bare `Bash` rule allows it. */
      opaque?: string;
      /** A construct the analysis does not vouch for (loops, functions, `case`): rules may still allow each part. */
      construct?: string;
      /** Some command changes the directory (other than a leading `cd DIR &&`): relative paths cannot be judged. */
      changesDirectory?: true;
      /** Some parts run at the same time (a pipeline, `&`), so one may act before an earlier one ends. */
      concurrent?: true;
    }
  | { ok: false; reason: string };

/** The longest line analysed; a longer one is reported as unparseable (it is not a command anyone types). */
const MAX_ANALYSED_LENGTH = 64 * 1024;

/**
 * Reads `command` into simple commands, nested ones (subshells, substitutions, loop bodies) included.
 * Loads the grammar on first use.
 * @example await splitBashCommand('npm test && echo "a && b"') // two commands: `npm test`, `echo "a && b"`
 */
export async function splitBashCommand(command: string): Promise<BashSplit> {
  await loadShellParser();
  return splitLoaded(command);
}

/** `splitBashCommand` once the grammar is loaded (see shell-parser's `loadShellParser`). */
function splitLoaded(command: string): BashSplit {
  if (command.includes("\0")) return { ok: false, reason: "the command contains a NUL byte" };
  if (command.length > MAX_ANALYSED_LENGTH)
    return { ok: false, reason: "the command is too long to analyse" };
  const { root, hasError } = parseShell(command);
  const problem = syntaxProblem(root, command, hasError);
  if (problem) return { ok: false, reason: problem };
  const walker = new Walker();
  walker.leadingCd = findLeadingCd(root);
  walker.statements(root);
  const result: BashSplit = { ok: true, commands: walker.commands };
  // A variable set by one part (`printf -v PATH …; ls`, `HOME=/x; cat ~/k`) changes what a later part's
  // words and program lookup mean, which no rule or spec of that later part sees.
  const setter = walker.commands.slice(0, -1).find((c) => walker.setters.has(c));
  if (setter) walker.opaque ??= `\`${setter.text}\` sets shell variables that later parts use`;
  if (walker.opaque) result.opaque = walker.opaque;
  if (walker.concurrent) result.concurrent = true;
  if (walker.construct) result.construct = walker.construct;
  const cd = walker.commands.find((c) => c.leadingCd);
  const target = cd?.words[1];
  if (target?.literal) {
    for (const cmd of walker.commands) if (cmd !== cd) cmd.cdTarget = target.value;
  }
  // Any other change of directory leaves later relative paths pointing somewhere the analysis cannot see.
  if (walker.commands.some((c) => c !== cd && changesDirectory(c)) || (cd && !target?.literal)) {
    result.changesDirectory = true;
  }
  return result;
}

/** Statement-level punctuation the walker passes over (substitution delimiters included). */
// biome-ignore format: a word list reads better packed
const SEPARATORS = new Set([
  "&&", "||", ";", "&", "|", "|&", "(", ")", "{", "}", "!", "\n", "$(", "`", "<(", ">(",
]);
/** Compound statements whose parts are analysed but which the analysis does not vouch for as a whole. */
const CONSTRUCTS: Record<string, string> = {
  for_statement: "a for loop",
  c_style_for_statement: "a for loop",
  while_statement: "a while loop",
  if_statement: "an if statement",
  case_statement: "a case statement",
  function_definition: "a function definition",
};
/** Keywords and clause punctuation inside constructs. */
// biome-ignore format: a word list reads better packed
const CONSTRUCT_TOKENS = new Set([
  "if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while", "until", "case", "esac", ";;", ";&",
  ";;&", "function", "select", "((", "))",
]);

/** Finds what makes a tree unreadable: an error or made-up node, or text the tree does not account for. */
function syntaxProblem(root: ShellNode, text: string, hasError: boolean): string | undefined {
  let pos = 0;
  let problem: string | undefined;
  const visit = (node: ShellNode): void => {
    if (problem) return;
    if (node.type === "ERROR") {
      problem = `syntax error near ${JSON.stringify(node.text.slice(0, 40))}`;
      return;
    }
    // Leaves (and heredoc bodies, whose plain text has no node) must tile the line with only blanks between.
    if (node.children.length === 0 || node.type === "heredoc_body") {
      if (node.start < pos) return;
      const gap = text.slice(pos, node.start);
      if (!/^(?:[ \t\n]|\\\n)*$/.test(gap))
        problem = `the parser skipped ${JSON.stringify(gap.slice(0, 40))}`;
      pos = node.end;
      if (node.type !== "heredoc_body") return;
    }
    for (const child of node.children) visit(child);
  };
  visit(root);
  if (problem) return problem;
  // A node the parser made up (a missing `)` or `fi`) is not an ERROR node but still an error.
  if (hasError) return "syntax error: the line is incomplete";
  const rest = text.slice(pos);
  if (!/^(?:[ \t\n]|\\\n)*$/.test(rest)) return `the parser skipped ${JSON.stringify(rest.slice(0, 40))}`;
  return undefined;
}

/**
 * The `cd DIR` that opens the line and guards everything after it with `&&` (`cd DIR && a && b`), if
 * any: then every later command runs in DIR or not at all, so its paths can be judged from DIR.
 */
function findLeadingCd(root: ShellNode): ShellNode | undefined {
  const statements = root.children.filter((c) => c.type !== "comment" && !SEPARATORS.has(c.type));
  if (statements.length !== 1) return undefined;
  let node = statements[0];
  while (node.type === "list") {
    if (node.children[1]?.type !== "&&") return undefined;
    node = node.children[0];
  }
  if (node.type !== "command" || node === statements[0]) return undefined;
  const [name, dir] = node.children;
  if (
    name?.type !== "command_name" ||
    name.text !== "cd" ||
    dir === undefined ||
    node.children.length !== 2
  ) {
    return undefined;
  }
  return node;
}

class Walker implements WordSink {
  commands: SimpleCommand[] = [];
  /** The commands that set shell variables (assignments, `read`, `printf -v`, `export`…). */
  setters = new Set<SimpleCommand>();
  concurrent = false;
  opaque: string | undefined;
  construct: string | undefined;
  /** Heredocs seen: with two or more, the grammar may hand one's body to the other. */
  heredocs = 0;
  leadingCd: ShellNode | undefined;

  /** Walks statement-level nodes: lists, pipelines, groups, constructs, commands. */
  statements(node: ShellNode): void {
    for (const child of node.children) {
      if (child.type === "&") this.concurrent = true;
      this.statement(child);
    }
  }

  statement(node: ShellNode): void {
    switch (node.type) {
      case "pipeline":
        this.concurrent = true;
        this.statements(node);
        return;
      case "program":
      case "list":
      case "subshell":
      case "compound_statement":
      case "negated_command":
      case "do_group":
      case "elif_clause":
      case "else_clause":
        this.statements(node);
        return;
      case "command":
        this.command(node, []);
        return;
      case "redirected_statement":
        this.redirected(node);
        return;
      case "variable_assignment":
      case "variable_assignments":
        this.command(node, []);
        return;
      case "declaration_command":
      case "unset_command":
        this.declaration(node);
        return;
      case "test_command":
        this.test(node);
        return;
      case "comment":
        return;
      case "heredoc_body":
        this.looseHeredocBody(node);
        return;
    }
    if (node.type in CONSTRUCTS) {
      this.construct ??= CONSTRUCTS[node.type];
      if (node.type === "c_style_for_statement") this.opaque ??= "a C-style for loop evaluates arithmetic";
      for (const child of node.children) {
        if (!child.named) continue;
        if (child.type === "variable_name" || child.type === "word" || child.type === "extglob_pattern") {
          this.word(child);
        } else if (child.type === "case_item") {
          for (const c of child.children) {
            if (isStatement(c)) this.statement(c);
            else if (c.named) this.word(c);
          }
        } else if (isStatement(child)) this.statement(child);
        else this.word(child);
      }
      return;
    }
    if (SEPARATORS.has(node.type) || CONSTRUCT_TOKENS.has(node.type)) return;
    // A statement of a kind this walker does not know: keep it as an unproven part so rules still see it.
    this.commands.push(unknownPart(node, `\`${node.type}\` is not understood`));
    this.nested(node);
  }

  /** `cmd > out 2>&1`, `{ …; } > log`, `cat <<EOF | wc -l …`. */
  redirected(node: ShellNode): void {
    const redirects: ShellRedirect[] = [];
    let body: ShellNode | undefined;
    const later: ShellNode[] = [];
    for (const child of node.children) {
      if (isRedirect(child.type)) {
        // The grammar hangs the rest of a pipeline or list after a heredoc inside the redirect node.
        redirects.push(...this.redirect(child, later));
      } else if (body === undefined && isStatement(child)) body = child;
      else if (isStatement(child)) later.push(child);
    }
    if (body?.type === "command") this.command(body, redirects);
    else {
      if (body) this.statement(body);
      if (redirects.length > 0) this.commands.push(redirectOnly(redirects));
    }
    for (const stmt of later) this.statement(stmt);
  }

  command(node: ShellNode, outer: ShellRedirect[]): void {
    const assignments: ShellWord[] = [];
    const words: ShellWord[] = [];
    const redirects: ShellRedirect[] = [...outer];
    let unproven: string | undefined;
    // A bare assignment statement (`x=1`, `a=1 b=2`) is its own node; a command holds them as children.
    const children = node.type === "command" ? node.children : [node];
    for (const child of children) {
      if (child.type === "variable_assignment") assignments.push(this.assignment(child));
      else if (child.type === "variable_assignments") {
        for (const a of child.children)
          if (a.type === "variable_assignment") assignments.push(this.assignment(a));
      } else if (child.type === "command_name") words.push(this.word(child));
      else if (isRedirect(child.type)) redirects.push(...this.redirect(child, []));
      else if (child.type === "comment") continue;
      else if (child.named) words.push(this.word(child));
      else if (child.type !== "=") {
        // A stray token (`$` before `"…"`, say): the shell reads it in ways this walker does not model.
        words.push({ raw: child.text, value: child.text, literal: false, why: `\`${child.text}\`` });
      }
    }
    if (words.some((w) => !w.literal)) unproven = firstWhy(words);
    if (assignments.length > 0) unproven ??= "it sets variables";
    const program = words[0]?.value;
    if (program === "cd" && node !== this.leadingCd) {
      unproven ??= "`cd` changes the directory later paths are relative to";
    }
    if (program === "let") this.opaque ??= "`let` evaluates arithmetic";
    this.opaque ??= nameHazard(words);
    const cmd = makeCommand(
      assignments,
      words,
      redirects,
      unproven,
      node === this.leadingCd ? true : undefined,
    );
    if ((words.length === 0 && assignments.length > 0) || setsVariables(cmd.argv)) this.setters.add(cmd);
    this.commands.push(cmd);
  }

  /** `export A=1`, `local x`, `declare -i n=…`, `unset y`. */
  declaration(node: ShellNode): void {
    const words: ShellWord[] = [];
    for (const child of node.children) {
      if (isRedirect(child.type)) continue;
      const w = child.named ? this.word(child) : literalWord(child.text);
      words.push(w);
    }
    const keyword = words[0]?.value;
    if (keyword !== "export" && keyword !== "unset" && words.some((w) => /^-[a-zA-Z]*i/.test(w.value))) {
      this.opaque ??= `\`${keyword} -i\` evaluates arithmetic`;
    }
    if (words.slice(1).some((w) => hasSubscript(w.raw))) {
      this.opaque ??= "an array subscript in a variable name is evaluated as arithmetic";
    }
    const cmd = makeCommand([], words, [], "it declares or changes shell variables");
    this.setters.add(cmd);
    this.commands.push(cmd);
  }

  /** `[ … ]` and `[[ … ]]`. `[[` compares numbers by evaluating arithmetic on variables. */
  test(node: ShellNode): void {
    if (node.children[0]?.type === "[[") this.opaque ??= "`[[ ]]` may evaluate arithmetic on variables";
    const words = node.text.split(/\s+/).filter(Boolean).map(literalWord);
    // `-v 'a[$(cmd)]'` (and `[[ -v … ]]`) evaluates the subscript of the name it tests.
    if (nameWords(words.slice(0, -1).map((w) => w.value)).some(hasSubscript)) {
      this.opaque ??= "an array subscript in a tested name is evaluated as arithmetic";
    }
    this.nested(node);
    this.commands.push(makeCommand([], words, [], "a test expression"));
  }

  assignment(node: ShellNode): ShellWord {
    const eq = node.children.findIndex((c) => !c.named && (c.type === "=" || c.type === "+="));
    if (node.children.slice(0, Math.max(eq, 0)).some((c) => c.type === "subscript")) {
      this.opaque ??= "an array subscript is evaluated as arithmetic";
    }
    for (const value of node.children.slice(eq + 1)) {
      if (value.type === "array") this.nested(value);
      else if (value.named) this.word(value);
    }
    return { raw: node.text, value: node.text, literal: false, why: "a variable assignment" };
  }

  /** Reads one redirect; statements the grammar nests in a heredoc redirect go to `later`. */
  redirect(node: ShellNode, later: ShellNode[]): ShellRedirect[] {
    const op = node.children.find((c) => !c.named)?.text ?? "";
    if (node.type === "heredoc_redirect") {
      let body: ShellWord | undefined;
      // `sort <<EOF > out.txt`: the grammar hangs redirects written after the delimiter inside this
      // node; they are the command's own, and judged with it.
      const alongside: ShellRedirect[] = [];
      // Only a quoted delimiter (`'EOF'`, `"EOF"`, `\EOF`) keeps the body literal.
      const start = node.children.find((c) => c.type === "heredoc_start")?.text ?? "";
      const quoted = /['"\\]/.test(start);
      this.opaque ??= heredocShapeProblem(node, start, ++this.heredocs);
      for (const child of node.children) {
        if (child.type === "heredoc_body") {
          this.heredocBody(child);
          // An unquoted body expands `$VAR`, `$(…)` and backticks into what the command reads. The
          // grammar's nodes miss some (backticks, a `<<-` body's tab-indented lines), so the text decides.
          const expands = !quoted && /[$`]/.test(child.text);
          if (expands) this.opaque ??= heredocHazard(child.text);
          body = expands
            ? { raw: child.text, value: child.text, literal: false, why: "an expanding heredoc body" }
            : literalWord(child.text);
        } else if (isStatement(child)) later.push(child);
        else if (isRedirect(child.type)) alongside.push(...this.redirect(child, later));
      }
      return [{ op, kind: "input", target: body }, ...alongside];
    }
    const targetNode = node.children.filter((c) => c.named && c.type !== "file_descriptor").at(-1);
    if (node.type === "herestring_redirect") {
      return [{ op, kind: "input", target: targetNode && this.word(targetNode) }];
    }
    if (targetNode === undefined) return [{ op, kind: "close" }];
    const target = this.word(targetNode);
    return [{ op, kind: redirectKind(op, target), target }];
  }

  /** Unquoted heredoc bodies expand `$x`, `$(…)` and backticks: their commands are parts. */
  heredocBody(node: ShellNode): void {
    this.nested(node);
  }

  /** A heredoc body the grammar hangs outside its redirect: its delimiter is unknown, so unquoted. */
  looseHeredocBody(node: ShellNode): void {
    this.nested(node);
    if (/[$`]/.test(node.text)) this.opaque ??= heredocHazard(node.text) ?? "an expanding heredoc body";
  }

  /** Reduces an argument node to a word, collecting the commands inside substitutions as it goes. */
  word(node: ShellNode): ShellWord {
    const w = new WordBuilder(this);
    w.add(node);
    return w.finish(node.text);
  }

  /** Walks any node for substitutions (their commands become parts) and arithmetic hazards. */
  nested(node: ShellNode): void {
    for (const child of node.children) {
      if (child.type === "command_substitution" || child.type === "process_substitution") {
        this.statements(child);
      } else if (child.type === "arithmetic_expansion") {
        this.opaque ??= arithmeticHazard(child);
        this.nested(child);
      } else if (child.type === "expansion") {
        this.opaque ??= expansionHazard(child);
        this.nested(child);
      } else if (child.type === "subscript") {
        this.opaque ??= "an array subscript is evaluated as arithmetic";
        this.nested(child);
      } else this.nested(child);
    }
  }
}

/**
 * Why the grammar's reading of a heredoc cannot be trusted, or undefined. Checked against bash: a
 * delimiter quoted in part (`E"O"F`, whose end line is `EOF`) makes the grammar look for another end
 * and take the following commands for body text; with two heredocs on a line (`a <<X | b <<'Y'`) it
 * may give the first body to the second delimiter, so an expanding body passes for a literal one.
 */
function heredocShapeProblem(node: ShellNode, start: string, seen: number): string | undefined {
  if (seen > 1) return "more than one heredoc, whose bodies the analysis cannot pair for certain";
  const m = /^(?:'([\w.-]+)'|"([\w.-]+)"|\\([\w.-]+)|([\w.-]+))$/.exec(start);
  const word = m?.slice(1).find((g) => g !== undefined);
  if (word === undefined) return "a heredoc delimiter of a shape the analysis does not read";
  const end = node.children.find((c) => c.type === "heredoc_end")?.text.trim();
  if (end !== word) return "a heredoc whose end the analysis cannot place";
  return undefined;
}

/**
 * Why an unquoted heredoc body may run code no part shows: a command substitution, backticks, a
 * `${…}` or arithmetic, which the grammar does not reliably expose as nodes inside a body.
 */
function heredocHazard(body: string): string | undefined {
  return /`|\$[({[]/.test(body) ? "an unquoted heredoc body runs the substitutions in it" : undefined;
}

/**
 * Bash builtins that take variable names (`read NAME`, `printf -v NAME`, `test -v NAME`, `unset NAME`…):
 * a subscript in a name is arithmetic, and `a[$(cmd)]` there runs cmd, quoted or not.
 */
// biome-ignore format: a word list reads better packed
const NAME_BUILTINS = new Set([
  "read", "mapfile", "readarray", "printf", "test", "[", "unset", "declare", "typeset", "local", "export",
  "readonly", "let", "getopts", "wait",
]);

/** Builtins that set shell variables or otherwise change what later words of the line mean. */
// biome-ignore format: a word list reads better packed
const VARIABLE_SETTERS = new Set([
  "read", "mapfile", "readarray", "getopts", "let", "set", "shopt", "source", ".", "eval", "alias", "unalias",
  "hash", "enable", "export", "declare", "typeset", "local", "readonly", "unset", "shift", "wait", "trap",
]);

/** The program a line of words runs, past the `command`/`builtin` prefixes. */
function builtinArgs(argv: readonly string[]): readonly string[] {
  let i = 0;
  while (argv[i] === "command" || argv[i] === "builtin") i++;
  return argv.slice(i);
}

/** True when the words set shell variables: a setter builtin, or `printf -v NAME`. */
function setsVariables(argv: readonly string[]): boolean {
  const [program, first] = builtinArgs(argv);
  if (program === undefined) return false;
  return VARIABLE_SETTERS.has(program) || (program === "printf" && first?.startsWith("-v") === true);
}

/** Why a name-taking builtin's words may run code: a subscript in a name, or `mapfile -C callback`. */
function nameHazard(words: readonly ShellWord[]): string | undefined {
  const argv = builtinArgs(words.map((w) => w.raw));
  if (!NAME_BUILTINS.has(argv[0] ?? "")) return undefined;
  if ((argv[0] === "mapfile" || argv[0] === "readarray") && argv.some((a) => /^-[^-]*C/.test(a))) {
    return "`mapfile -C` runs a callback";
  }
  if (nameWords(argv).some(hasSubscript))
    return "an array subscript in a variable name is evaluated as arithmetic";
  return undefined;
}

/** The words a name-taking builtin reads as names: after `-v` for printf, `-v`/`-R` for test, else all. */
function nameWords(argv: readonly string[]): readonly string[] {
  const [program, ...args] = argv;
  if (program === "printf") {
    if (!args[0]?.startsWith("-v")) return [];
    return [args[0].length > 2 ? args[0].slice(2) : (args[1] ?? "")];
  }
  if (program === "test" || program === "[") {
    return args.filter((_, i) => i > 0 && (args[i - 1] === "-v" || args[i - 1] === "-R"));
  }
  return args;
}

/** True when `text` has a `[` that is not a plain `[digits]` index: an arithmetic subscript. */
function hasSubscript(text: string): boolean {
  return /\[(?!\d*\])/.test(text);
}

function isStatement(node: ShellNode): boolean {
  return (
    node.named &&
    !isRedirect(node.type) &&
    // biome-ignore format: a word list reads better packed
    ![
      "word", "string", "raw_string", "concatenation", "number", "variable_name", "heredoc_start",
      "heredoc_end", "file_descriptor", "extglob_pattern", "simple_expansion", "expansion",
      "command_substitution", "ansi_c_string", "translated_string", "arithmetic_expansion",
      "brace_expression", "process_substitution", "case_item", "regex", "test_operator",
    ].includes(node.type)
  );
}

function isRedirect(type: string): boolean {
  return type === "file_redirect" || type === "heredoc_redirect" || type === "herestring_redirect";
}

function redirectKind(op: string, target: ShellWord): ShellRedirect["kind"] {
  if (op === "<") return "read";
  if (op === ">&" || op === "<&") {
    if (target.literal && /^(\d+|-)$/.test(target.value)) return target.value === "-" ? "close" : "dup";
    return op === "<&" ? "read" : "write";
  }
  return "write"; // `>`, `>>`, `>|`, `&>`, `&>>`, `<>`
}

const DIRECTORY_CHANGERS = new Set(["cd", "pushd", "popd"]);

function changesDirectory(cmd: SimpleCommand): boolean {
  const [first, second] = cmd.argv;
  return (
    DIRECTORY_CHANGERS.has(first) ||
    ((first === "builtin" || first === "command") && DIRECTORY_CHANGERS.has(second))
  );
}

function firstWhy(words: ShellWord[]): string | undefined {
  const w = words.find((x) => !x.literal);
  return w ? `\`${w.raw}\` has ${w.why}` : undefined;
}

function makeCommand(
  assignments: ShellWord[],
  words: ShellWord[],
  redirects: ShellRedirect[],
  unproven: string | undefined,
  leadingCd?: true,
): SimpleCommand {
  const cmd: SimpleCommand = {
    text: [...assignments, ...words].map((w) => w.raw).join(" "),
    commandText: words.map((w) => w.raw).join(" "),
    argv: words.map((w) => w.value),
    writtenFiles: redirects
      .filter((r) => r.kind === "write" && r.target && r.target.value !== "/dev/null")
      .map((r) => r.target!.value),
    words,
    assignments,
    redirects,
  };
  if (unproven) cmd.unproven = unproven;
  if (leadingCd) cmd.leadingCd = true;
  return cmd;
}

function redirectOnly(redirects: ShellRedirect[]): SimpleCommand {
  return makeCommand([], [], redirects, undefined);
}

function unknownPart(node: ShellNode, why: string): SimpleCommand {
  return makeCommand([], [{ raw: node.text, value: node.text, literal: false, why }], [], why);
}
