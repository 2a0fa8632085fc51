/**
 * Baseline only: the compiled src/permissions/bash-split.ts as it was before Bash lines were read with a bash grammar
 * (commit a27ca7e), kept so bench/permission-check.mjs can compare the old and new checks in one run.
 * Not used by Goat, and not safe: it is what issue 11 replaced.
 */
/**
 * Splits a shell command line into the simple commands it would run, so each can be checked on its
 * own: `&&`, `||`, `;`, `|`, `&`, newlines, subshells `( )`, command substitution `$( )` and
 * backticks, and process substitution `<( )`. A small quote-aware tokenizer, not a shell: anything
 * it cannot follow (an unclosed quote, a stray parenthesis) is reported as unparseable so the caller
 * can refuse to auto-allow it.
 */
class ShellSyntaxError extends Error {}
/** Words that start or end a compound command; they are not the command being run. */
const LEADING_KEYWORDS = new Set(["!", "{", "then", "do", "else", "elif", "if", "while", "until"]);
const CLOSING_KEYWORDS = new Set(["}", "fi", "done", "esac"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
/**
 * Splits `command` into simple commands, nested ones (subshells, substitutions) included.
 * @example splitBashCommand('npm test && echo "a && b"') // two commands: `npm test`, `echo "a && b"`
 */
export function splitBashCommand(command) {
  const out = [];
  const cursor = { s: command, i: 0, heredocs: [] };
  try {
    parseSequence(cursor, null, out);
  } catch (err) {
    if (err instanceof ShellSyntaxError) return { ok: false, reason: err.message };
    throw err;
  }
  return { ok: true, commands: out };
}
function parseSequence(p, closer, out) {
  const s = p.s;
  let cur = { words: [], redirects: [] };
  let word = null;
  let pendingOp = null;
  const append = (raw, value = raw) => {
    word ??= { raw: "", value: "" };
    word.raw += raw;
    word.value += value;
  };
  const endWord = () => {
    if (word === null) return;
    if (pendingOp !== null) {
      cur.redirects.push({ op: pendingOp, target: word.value });
      if (pendingOp === "<<" || pendingOp === "<<-") {
        p.heredocs.push({ delimiter: word.value, stripTabs: pendingOp === "<<-" });
      }
      pendingOp = null;
    } else cur.words.push(word);
    word = null;
  };
  const endCommand = () => {
    endWord();
    if (pendingOp !== null) throw new ShellSyntaxError(`'${pendingOp}' without a target`);
    const done = finishCommand(cur);
    if (done) out.push(done);
    cur = { words: [], redirects: [] };
  };
  while (p.i < s.length) {
    const c = s[p.i];
    const next = s[p.i + 1];
    if (closer !== null && c === closer) {
      endCommand();
      p.i++;
      return;
    }
    if (c === " " || c === "\t") {
      endWord();
      p.i++;
    } else if (c === "\\") {
      if (next === "\n") p.i += 2;
      else {
        append(c + (next ?? ""), next ?? "");
        p.i += 2;
      }
    } else if (c === "\n") {
      endCommand();
      p.i++;
      skipHeredocBodies(p);
    } else if (c === ";") {
      endCommand();
      p.i += next === ";" ? 2 : 1;
    } else if (c === "&" && next === ">") {
      endWord();
      p.i += s[p.i + 2] === ">" ? 3 : 2;
      pendingOp = "&>";
    } else if (c === "&" || c === "|") {
      endCommand();
      p.i += next === "&" || next === "|" ? 2 : 1;
    } else if ((c === "<" || c === ">") && next === "(") {
      const start = p.i;
      p.i += 2;
      parseSequence(p, ")", out);
      append(s.slice(start, p.i));
    } else if (c === "<" || c === ">") {
      // A word made only of digits right before the operator is a file descriptor, not an argument.
      if (word !== null && /^\d+$/.test(word.raw)) word = null;
      else endWord();
      pendingOp = readRedirectOperator(p);
    } else if (c === "'") {
      const end = s.indexOf("'", p.i + 1);
      if (end === -1) throw new ShellSyntaxError("unclosed single quote");
      append(s.slice(p.i, end + 1), s.slice(p.i + 1, end));
      p.i = end + 1;
    } else if (c === '"') {
      const start = p.i;
      const value = readDoubleQuoted(p, out);
      append(s.slice(start, p.i), value);
    } else if (c === "`" || (c === "$" && next === "(")) {
      const start = p.i;
      readSubstitution(p, out);
      append(s.slice(start, p.i));
    } else if (c === "$" && next === "{") {
      const end = s.indexOf("}", p.i);
      if (end === -1) throw new ShellSyntaxError("unclosed ${");
      append(s.slice(p.i, end + 1));
      p.i = end + 1;
    } else if (c === "(") {
      // biome-ignore lint/complexity/useOptionalChain: kept as it was compiled
      if (word !== null && word.raw.endsWith("=")) {
        const end = s.indexOf(")", p.i);
        if (end === -1) throw new ShellSyntaxError("unclosed array assignment");
        append(s.slice(p.i, end + 1));
        p.i = end + 1;
      } else if (word === null && cur.words.length === 0) {
        p.i++;
        parseSequence(p, ")", out);
      } else throw new ShellSyntaxError("unexpected '('");
    } else if (c === ")") {
      throw new ShellSyntaxError("unexpected ')'");
    } else if (c === "#" && word === null) {
      const end = s.indexOf("\n", p.i);
      p.i = end === -1 ? s.length : end;
    } else {
      append(c);
      p.i++;
    }
  }
  if (closer !== null) throw new ShellSyntaxError(`unclosed '${closer === ")" ? "(" : "`"}'`);
  endCommand();
}
function readRedirectOperator(p) {
  const rest = p.s.slice(p.i, p.i + 3);
  for (const op of ["<<<", "<<-", ">>", ">|", ">&", "<<", "<>", "<&", ">", "<"]) {
    if (rest.startsWith(op)) {
      p.i += op.length;
      return op;
    }
  }
  throw new ShellSyntaxError("bad redirection");
}
/** Reads `"…"` starting at the opening quote; returns the unquoted value. */
function readDoubleQuoted(p, out) {
  const s = p.s;
  let value = "";
  p.i++;
  while (p.i < s.length) {
    const c = s[p.i];
    if (c === '"') {
      p.i++;
      return value;
    }
    if (c === "\\" && p.i + 1 < s.length) {
      value += '$`"\\\n'.includes(s[p.i + 1]) ? s[p.i + 1] : c + s[p.i + 1];
      p.i += 2;
    } else if (c === "`" || (c === "$" && s[p.i + 1] === "(")) {
      const start = p.i;
      readSubstitution(p, out);
      value += s.slice(start, p.i);
    } else {
      value += c;
      p.i++;
    }
  }
  throw new ShellSyntaxError("unclosed double quote");
}
/** Reads `$( … )`, `$(( … ))` or a backtick substitution; the commands inside are added to `out`. */
function readSubstitution(p, out) {
  if (p.s[p.i] === "`") {
    p.i++;
    parseSequence(p, "`", out);
    return;
  }
  if (p.s[p.i + 2] === "(") {
    // Arithmetic `$(( … ))`: no commands inside (nested substitutions in it are not followed).
    let depth = 0;
    for (; p.i < p.s.length; p.i++) {
      if (p.s[p.i] === "(") depth++;
      else if (p.s[p.i] === ")" && --depth === 0) {
        p.i++;
        return;
      }
    }
    throw new ShellSyntaxError("unclosed $((");
  }
  p.i += 2;
  parseSequence(p, ")", out);
}
function skipHeredocBodies(p) {
  while (p.heredocs.length > 0) {
    const { delimiter, stripTabs } = p.heredocs.shift();
    while (p.i < p.s.length) {
      const end = p.s.indexOf("\n", p.i);
      const line = p.s.slice(p.i, end === -1 ? p.s.length : end);
      p.i = end === -1 ? p.s.length : end + 1;
      if ((stripTabs ? line.replace(/^\t+/, "") : line) === delimiter) break;
    }
  }
}
function finishCommand(b) {
  let words = b.words;
  while (words.length > 0 && LEADING_KEYWORDS.has(words[0].raw)) words = words.slice(1);
  while (words.length > 0 && CLOSING_KEYWORDS.has(words[words.length - 1].raw)) words = words.slice(0, -1);
  let firstCommandWord = 0;
  while (firstCommandWord < words.length && ASSIGNMENT.test(words[firstCommandWord].raw)) firstCommandWord++;
  const writtenFiles = b.redirects
    .filter(({ op, target }) => isFileWrite(op, target))
    .map(({ target }) => target);
  const commandWords = words.slice(firstCommandWord);
  if (commandWords.length === 0 && writtenFiles.length === 0) return null;
  return {
    text: words.map((w) => w.raw).join(" "),
    commandText: commandWords.map((w) => w.raw).join(" "),
    argv: commandWords.map((w) => w.value),
    writtenFiles,
  };
}
function isFileWrite(op, target) {
  if (target === "/dev/null") return false;
  if (op === ">&") return !/^(\d+|-)$/.test(target);
  return op === ">" || op === ">>" || op === ">|" || op === "&>" || op === "<>";
}
