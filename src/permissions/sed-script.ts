/**
 * Reads a `sed` command line and its script, so `sed -n '1,20p' file` runs without asking while
 * `sed 'w /etc/x'`, `sed 's/a/b/e'`, `sed '1r ~/.ssh/id_rsa'` or `sed -f script` do not: the script
 * is parsed command by command (as GNU sed's compiler scans it) and any command that writes a file
 * (`w`, `W`, the `w` flag of `s`), runs one (`e`, the `e` flag), or reads another file (`r`, `R`)
 * refuses it, as does anything this parser does not recognise. `-i` turns the file operands into
 * writes (acceptEdits judges those), and a backup suffix adds each file's backup (`-irc` on `.bash`
 * writes `.bashrc`, which is protected); a suffix with `*` or `/` names a path not written out, and asks.
 */

/** What a sed command line touches, or why it is refused. */
export function sedEffects(args: readonly string[]): { reads: string[]; writes: string[] } | string {
  const scripts: string[] = [];
  const operands: string[] = [];
  let inPlace = false;
  /** The backup suffix of `-iSUFFIX`: each file's backup is the file's path with it appended. */
  let backupSuffix = "";
  let onlyOperands = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (onlyOperands || arg === "-" || !arg.startsWith("-")) {
      operands.push(arg);
    } else if (arg === "--") {
      onlyOperands = true;
    } else if (arg.startsWith("--")) {
      const [name, inline] = splitLong(arg);
      if (name === "expression") {
        const script = inline ?? args[++i];
        if (script === undefined) return "`--expression` needs a script";
        scripts.push(script);
      } else if (name === "in-place") {
        if (inline && !plainSuffix(inline)) return backupRefusal;
        backupSuffix = inline ?? "";
        inPlace = true;
      } else if (name === "line-length") {
        if (inline === undefined) i++;
      } else if (
        inline !== undefined ||
        ![
          "quiet",
          "silent",
          "regexp-extended",
          "separate",
          "unbuffered",
          "null-data",
          "posix",
          "debug",
          "sandbox",
        ].includes(name)
      ) {
        return `the sed option \`--${name}\` is not one known to be safe`;
      }
    } else {
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j];
        if (letter === "i") {
          // The rest of the bundle is a backup suffix: `-irc` on `.bash` writes `.bashrc`, judged below.
          backupSuffix = arg.slice(j + 1);
          if (!plainSuffix(backupSuffix)) return backupRefusal;
          inPlace = true;
          break;
        }
        if (letter === "e" || letter === "l") {
          const value = j + 1 < arg.length ? arg.slice(j + 1) : args[++i];
          if (value === undefined) return `\`-${letter}\` needs a value`;
          if (letter === "e") scripts.push(value);
          break;
        }
        if (!"nErsuz".includes(letter)) return `the sed option \`-${letter}\` is not one known to be safe`;
      }
    }
  }
  if (scripts.length === 0) {
    const script = operands.shift();
    if (script === undefined) return "sed without a script";
    scripts.push(script);
  }
  for (const script of scripts) {
    const problem = sedScriptProblem(script);
    if (problem) return problem;
  }
  const files = operands.filter((o) => o !== "-");
  if (!inPlace) return { reads: files, writes: [] };
  const backups = backupSuffix === "" ? [] : files.map((f) => f + backupSuffix);
  return { reads: [], writes: [...files, ...backups] };
}

/** A suffix with `*` (replaced by the file's name) or `/` (another directory) hides the backup's path. */
const plainSuffix = (suffix: string): boolean => !/[*/]/.test(suffix);
const backupRefusal = "the backup suffix puts the backup somewhere not written out (`*` or `/` in it)";

function splitLong(arg: string): [string, string | undefined] {
  const eq = arg.indexOf("=");
  return eq === -1 ? [arg.slice(2), undefined] : [arg.slice(2, eq), arg.slice(eq + 1)];
}

/** Commands that take no argument (`l`, `q`, `Q` may take a number). */
const SIMPLE = new Set(["=", "d", "D", "g", "G", "h", "H", "n", "N", "p", "P", "x", "z", "F", "l", "q", "Q"]);

/** Why a sed script is refused, or `undefined` when it only edits the stream it prints. */
function sedScriptProblem(script: string): string | undefined {
  const s = script;
  let i = 0;
  const skipBlanks = () => {
    while (i < s.length && (s[i] === " " || s[i] === "\t")) i++;
  };
  /** Reads a `/…/` delimited part starting at the delimiter; returns false when it never ends. */
  const delimited = (): boolean => {
    const delim = s[i++];
    if (delim === undefined || delim === "\n" || delim === "\\") return false;
    while (i < s.length && s[i] !== delim) i += s[i] === "\\" ? 2 : 1;
    if (i >= s.length) return false;
    i++;
    return true;
  };
  const address = (): boolean => {
    if (/\d/.test(s[i] ?? "")) {
      while (/[\d~]/.test(s[i] ?? "")) i++;
    } else if (s[i] === "$") i++;
    else if (s[i] === "/" || s[i] === "\\") {
      if (s[i] === "\\") i++;
      if (!delimited()) return false;
      while (s[i] === "I" || s[i] === "M") i++;
    }
    return true;
  };
  while (i < s.length) {
    while (i < s.length && /[\s;]/.test(s[i])) i++;
    if (i >= s.length) break;
    if (s[i] === "#") {
      while (i < s.length && s[i] !== "\n") i++;
      continue;
    }
    if (!address()) return "the sed script has an unterminated address";
    if (s[i] === ",") {
      i++;
      if (s[i] === "+" || s[i] === "~") i++;
      if (!address()) return "the sed script has an unterminated address";
    }
    skipBlanks();
    while (s[i] === "!") {
      i++;
      skipBlanks();
    }
    const cmd = s[i++];
    if (cmd === undefined) return "the sed script ends after an address";
    if (cmd === "{" || cmd === "}") continue;
    if (SIMPLE.has(cmd)) {
      if (cmd === "l" || cmd === "q" || cmd === "Q") {
        skipBlanks();
        while (/\d/.test(s[i] ?? "")) i++;
      }
    } else if (cmd === ":" || cmd === "b" || cmd === "t" || cmd === "T") {
      skipBlanks();
      // A label ends at blanks, `;`, `}` or a newline (GNU stops at all but `}`; stopping earlier only reads more as commands).
      while (i < s.length && !/[\s;}]/.test(s[i])) i++;
    } else if (cmd === "a" || cmd === "i" || cmd === "c") {
      // Text to the end of the line; a backslash before the newline continues it.
      while (i < s.length && s[i] !== "\n") i += s[i] === "\\" ? 2 : 1;
    } else if (cmd === "s" || cmd === "y") {
      const delimStart = i;
      if (!delimited()) return `the sed \`${cmd}\` command is unterminated`;
      i--; // the closing delimiter opens the replacement
      if (s[i] !== s[delimStart] || !delimited()) return `the sed \`${cmd}\` command is unterminated`;
      if (cmd === "s") {
        while (i < s.length && /[gpiImM\d]/.test(s[i])) i++;
        if (s[i] === "e") return "the sed `e` flag runs the pattern space as a command";
        if (s[i] === "w") return "the sed `w` flag writes a file";
      }
    } else if (cmd === "w" || cmd === "W") return "the sed `w` command writes a file";
    else if (cmd === "r" || cmd === "R") return "the sed `r` command reads another file";
    else if (cmd === "e") return "the sed `e` command runs a command";
    else return `the sed command \`${cmd}\` is not one known to be safe`;
    skipBlanks();
    // After a command: the end, a separator, a closing brace or a comment.
    if (i < s.length && !/[;\n}#]/.test(s[i]))
      return `unexpected \`${s[i]}\` after the sed \`${cmd}\` command`;
  }
  return undefined;
}
