/**
 * Words of a bash command line: the literal string the shell passes for a word (quotes removed,
 * escapes applied, `~/` expanded), or what in it the shell would expand instead: variables,
 * substitutions, globs (looked for in the unquoted characters only), brace expansion, `~user`,
 * `$'…'` and `$"…"` quoting, arithmetic. Also the expansions that may run code hidden in a variable's
 * value, which make a line opaque to rules.
 */
import os from "node:os";
import type { ShellNode } from "./shell-parser.js";

/** One word as the shell would see it. */
export interface ShellWord {
  /** As written, quotes included. */
  raw: string;
  /** After quote removal and `~/` expansion when `literal`; the raw text otherwise. */
  value: string;
  /** True when no expansion can change the word: its value is exactly what the program gets. */
  literal: boolean;
  /** When not literal: what the shell would expand, in words. */
  why?: string;
}

/** Where a word reports what it finds inside: commands of substitutions, and opaque constructs. */
export interface WordSink {
  /** The first construct found that may run code no part shows. */
  opaque: string | undefined;
  /** Walks the statements inside a substitution. */
  statements(node: ShellNode): void;
  /** Walks any node for substitutions and hazards. */
  nested(node: ShellNode): void;
}

/** Builds one word from its pieces: the value, and a skeleton where quoted characters are masked. */
export class WordBuilder {
  value = "";
  /** Unquoted characters as written, quoted ones as `_`: globs, braces and `~` are looked for here. */
  skeleton = "";
  why: string | undefined;
  constructor(private readonly walker: WordSink) {}

  add(node: ShellNode): void {
    switch (node.type) {
      case "word":
      case "number":
      case "variable_name":
      case "extglob_pattern":
        this.unquoted(node.text);
        if (node.type === "extglob_pattern") this.why ??= "a glob pattern";
        return;
      case "raw_string":
        this.quoted(node.text.slice(1, -1));
        return;
      case "string":
        for (const child of node.children) {
          if (child.type === "string_content") this.doubleQuoted(child.text);
          else if (child.type !== '"') this.add(child);
        }
        return;
      case "concatenation":
      case "command_name":
        for (const child of node.children) this.add(child);
        return;
      case "ansi_c_string":
        this.dynamic(node, "`$'…'` quoting");
        return;
      case "translated_string":
        this.walker.nested(node);
        this.dynamic(node, '`$"…"` quoting');
        return;
      case "simple_expansion":
      case "expansion":
        if (node.type === "expansion") this.walker.opaque ??= expansionHazard(node);
        this.walker.nested(node);
        this.dynamic(node, "a variable expansion");
        return;
      case "command_substitution":
        this.walker.statements(node);
        this.dynamic(node, "a command substitution");
        return;
      case "process_substitution":
        this.walker.statements(node);
        this.dynamic(node, "a process substitution");
        return;
      case "arithmetic_expansion":
        this.walker.opaque ??= arithmeticHazard(node);
        this.walker.nested(node);
        this.dynamic(node, "an arithmetic expansion");
        return;
      case "brace_expression":
        this.dynamic(node, "a brace expansion");
        return;
      default:
        this.walker.nested(node);
        this.dynamic(node, `\`${node.type}\``);
    }
  }

  /** Unquoted text: backslash escapes quote one character; a backslash-newline disappears. */
  unquoted(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === "\\") {
        const next = text[i + 1];
        i++;
        if (next === undefined || next === "\n") continue;
        this.quoted(next);
      } else {
        if (c === "$" || c === "`") {
          this.why ??= `an unquoted \`${c}\``;
          this.hiddenSubstitution(text, i);
        }
        this.value += c;
        this.skeleton += c;
      }
    }
  }

  quoted(text: string): void {
    this.value += text;
    this.skeleton += "_".repeat(text.length);
  }

  /** Text inside `"…"`: `\` escapes only `$`, `` ` ``, `"`, `\` and newline. */
  doubleQuoted(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === "\\" && i + 1 < text.length && '$`"\\\n'.includes(text[i + 1])) {
        if (text[i + 1] !== "\n") this.quoted(text[i + 1]);
        i++;
      } else {
        if (c === "$" || c === "`") {
          this.why ??= `an unescaped \`${c}\` inside double quotes`;
          this.hiddenSubstitution(text, i);
        }
        this.quoted(c);
      }
    }
  }

  /**
   * A backtick, `$(`, `${` or `$[` left in plain text means the grammar did not expose a substitution
   * the shell will run (as in `{fd}` words or odd quoting): no rule can see its command.
   */
  hiddenSubstitution(text: string, i: number): void {
    if (text[i] === "`" || /[({[]/.test(text[i + 1] ?? "")) {
      this.walker.opaque ??= "a substitution the grammar does not show as a command";
    }
  }

  dynamic(node: ShellNode, why: string): void {
    this.why ??= why;
    this.value += node.text;
    this.skeleton += "_";
  }

  finish(raw: string): ShellWord {
    const s = this.skeleton;
    let value = this.value;
    if (this.why === undefined) {
      if (/[*?[]/.test(s)) this.why = "a glob pattern";
      // `{fd}>file` assigns the descriptor's number to fd (`{PATH}>x` sets PATH): not a plain word.
      else if (/^\{[A-Za-z_][\w]*(\[.*\])?\}$/s.test(s)) this.why = "a `{name}` a redirection would assign";
      else if (/\{.*(?:,|\.\.).*\}/s.test(s)) this.why = "a brace expansion";
      else if (s.startsWith("~")) {
        // `~` and `~/…` are the home directory; `~user`, `~+`, `~-` name other places.
        if (s === "~" || s.startsWith("~/")) value = os.homedir() + value.slice(1);
        else this.why = "a `~user` expansion";
      } else if (/[=:]~/.test(s)) this.why = "a `~` after `=` or `:`";
    }
    if (this.why !== undefined) return { raw, value: raw, literal: false, why: this.why };
    return { raw, value, literal: true };
  }
}

/** Why an arithmetic expansion or command is opaque, or undefined for constant arithmetic. */
export function arithmeticHazard(node: ShellNode): string | undefined {
  // Constant arithmetic is harmless; a variable's value is itself evaluated, and `a[$(cmd)]` in it runs cmd.
  const constant = /^\$?(\(\(|\[)[\s\d+\-*/%()<>=!&|^~?:,]*(\)\)|\])$/.test(node.text);
  return constant ? undefined : "arithmetic on variables can run commands hidden in their values";
}

/** Why a `${…}` expansion is opaque (indirection, `@` transformations), if it is. */
export function expansionHazard(node: ShellNode): string | undefined {
  const inner = node.text.slice(2, -1);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: names shell syntax
  if (inner.startsWith("!")) return "an indirect expansion `${!…}` can run commands hidden in a value";
  // biome-ignore lint/suspicious/noTemplateCurlyInString: names shell syntax
  if (/@[a-zA-Z]$/.test(inner)) return "a `${…@…}` transformation can run commands";
  // `${x:-`id`}`, `${x^^$(id)}`: the grammar leaves some substitutions inside `${…}` as plain text.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: names shell syntax
  if (hasHiddenSubstitution(node)) return "a substitution inside `${…}` the grammar does not show";
  // `${x:off:len}`: the offset and length are arithmetic, and a variable named there is evaluated too.
  const substring = /^#?[\w@*]+(?:\[[^\]]*\])?:(?![-=?+])(.*)$/s.exec(inner);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: names shell syntax
  if (substring && /[A-Za-z_$`]/.test(substring[1])) return "a `${x:offset}` substring evaluates arithmetic";
  return undefined;
}

/** True when a leaf under `node` holds a backtick, `$(`, `${` or `$[` as plain text. */
function hasHiddenSubstitution(node: ShellNode): boolean {
  return node.children.some((child) =>
    child.children.length === 0 ? child.named && /`|\$[({[]/.test(child.text) : hasHiddenSubstitution(child),
  );
}

/** A word taken as written. */
export function literalWord(text: string): ShellWord {
  return { raw: text, value: text, literal: true };
}
