/**
 * Reading one program's arguments the way its option parser would, from a spec that lists every flag
 * the permission layer vouches for and what each operand is: a path read, a path written, or plain
 * text. A flag the spec does not list makes the whole command unproven, so an option that writes or
 * runs something (`sort -o`, `rg --pre`, `tree -o`) can never slip through as an operand or be ignored.
 */

/** What an operand or an option's value is to the program. */
type ArgRole = "read" | "write" | "text";

/** The flags and operands of one program that the analysis understands. */
export interface CommandSpec {
  /** Short flags without a value, bundled or not: `"alhR1"`. */
  short?: string;
  /** Short flags that take a value (`-n 5`, `-n5`), with the value's role. */
  shortValue?: Readonly<Record<string, ArgRole>>;
  /** Long flags without a value: `["all", "human-readable"]`. */
  long?: readonly string[];
  /** Long flags that take a value (`--lines=5`, `--lines 5`), with its role. */
  longValue?: Readonly<Record<string, ArgRole>>;
  /** Long flags whose value is optional and only given as `--color=auto`. */
  longOptional?: Readonly<Record<string, ArgRole>>;
  /** `-5` as in `head -5`. */
  numericFlag?: boolean;
  /** What the operands are. `copy`: sources read, the last operand written; `move`: all written. */
  operands: ArgRole | "copy" | "move" | "none";
  /** The first operand is a pattern or a script (grep, rg, jq, sed) unless one of these flags gave one. */
  patternFirst?: { unlessFlags: readonly string[] };
  /** At most this many operands (after the pattern): `uniq IN OUT` writes OUT. */
  maxOperands?: number;
  /** Every argument is text and no flag changes that (echo, printf, true). */
  allText?: boolean;
  /** A last check on the parsed arguments; returns why the command is refused. */
  check?: (parsed: ParsedArgs) => string | undefined;
}

/** Arguments read against a spec. */
export interface ParsedArgs {
  /** Flag names as given (`-n`, `--lines`), with their values. */
  flags: Array<{ name: string; value?: string }>;
  /** The pattern or script operand when `patternFirst` applied. */
  pattern?: string;
  /** The remaining operands. */
  operands: string[];
  /** Paths the program reads. */
  reads: string[];
  /** Paths the program writes, creates or removes. */
  writes: string[];
  /** For `copy`/`move`: the destination, whose meaning depends on whether it is a directory. */
  destination?: { sources: string[]; target: string; movesSources: boolean };
}

/** Reads `args` (literal values, program name excluded) against `spec`; a string says why not. */
export function parseArgs(spec: CommandSpec, args: readonly string[]): ParsedArgs | string {
  const parsed: ParsedArgs = { flags: [], operands: [], reads: [], writes: [] };
  if (spec.allText) {
    parsed.operands.push(...args);
    return spec.check?.(parsed) ?? parsed;
  }
  const addValue = (role: ArgRole, value: string) => {
    if (role === "read") parsed.reads.push(value);
    else if (role === "write") parsed.writes.push(value);
  };
  let onlyOperands = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (onlyOperands || arg === "-" || !arg.startsWith("-")) {
      parsed.operands.push(arg);
      continue;
    }
    if (arg === "--") {
      onlyOperands = true;
      continue;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const inline = eq === -1 ? undefined : arg.slice(eq + 1);
      const valued = spec.longValue?.[name];
      const optional = spec.longOptional?.[name];
      if (valued !== undefined) {
        const value = inline ?? args[++i];
        if (value === undefined) return `\`--${name}\` needs a value`;
        addValue(valued, value);
        parsed.flags.push({ name: `--${name}`, value });
      } else if (optional !== undefined) {
        if (inline !== undefined) addValue(optional, inline);
        parsed.flags.push({ name: `--${name}`, value: inline });
      } else if (inline === undefined && spec.long?.includes(name)) {
        parsed.flags.push({ name: `--${name}` });
      } else return `the option \`--${name}\` is not one known to only read`;
      continue;
    }
    if (spec.numericFlag && /^-\d+$/.test(arg)) {
      parsed.flags.push({ name: "-n", value: arg.slice(1) });
      continue;
    }
    // A bundle of short flags: `-la`, `-n5`, `-A 3`.
    for (let j = 1; j < arg.length; j++) {
      const letter = arg[j];
      const valued = spec.shortValue?.[letter];
      if (valued !== undefined) {
        const value = j + 1 < arg.length ? arg.slice(j + 1) : args[++i];
        if (value === undefined) return `\`-${letter}\` needs a value`;
        addValue(valued, value);
        parsed.flags.push({ name: `-${letter}`, value });
        break;
      }
      if (!spec.short?.includes(letter)) return `the option \`-${letter}\` is not one known to only read`;
      parsed.flags.push({ name: `-${letter}` });
    }
  }
  return finishOperands(spec, parsed);
}

function finishOperands(spec: CommandSpec, parsed: ParsedArgs): ParsedArgs | string {
  if (spec.patternFirst) {
    const given = parsed.flags.some((f) => spec.patternFirst!.unlessFlags.includes(f.name));
    if (!given) {
      parsed.pattern = parsed.operands.shift();
      if (parsed.pattern === undefined) return "it has no pattern";
    }
  }
  const operands = parsed.operands;
  if (spec.maxOperands !== undefined && operands.length > spec.maxOperands) {
    return `it takes at most ${spec.maxOperands} file operand${spec.maxOperands === 1 ? "" : "s"} here`;
  }
  const files = operands.filter((o) => o !== "-");
  switch (spec.operands) {
    case "none":
      if (operands.length > 0) return "it takes no operands here";
      break;
    case "text":
      break;
    case "read":
      parsed.reads.push(...files);
      break;
    case "write":
      parsed.writes.push(...files);
      break;
    case "copy":
    case "move":
      if (!destinationFrom(spec.operands, parsed)) return "it needs a source and a destination";
      break;
  }
  const refusal = spec.check?.(parsed);
  return refusal ?? parsed;
}

/** `cp SRC… DEST`, `mv SRC… DEST`, or with `-t DIR` every operand is a source. */
function destinationFrom(kind: "copy" | "move", parsed: ParsedArgs): boolean {
  const targetFlag = parsed.flags.find((f) => f.name === "-t" || f.name === "--target-directory");
  const sources = [...parsed.operands];
  const target = targetFlag?.value ?? sources.pop();
  if (target === undefined || sources.length === 0) return false;
  // The -t value was already counted as a write by its role; the destination is worked out later.
  if (targetFlag) parsed.writes = parsed.writes.filter((w) => w !== target);
  if (kind === "copy") parsed.reads.push(...sources);
  else parsed.writes.push(...sources);
  parsed.destination = { sources, target, movesSources: kind === "move" };
  return true;
}
