/**
 * The front matter of Claude Code's markdown files (subagents, slash commands): a block between two
 * `---` lines at the top, of `key: value` lines, then the body. Only the small part of YAML those
 * files use is read — plain, quoted and `[a, b]` values, and `- item` lists under a key — by hand,
 * so no YAML library is loaded at start-up. A line that is none of these is a problem named with its
 * line number; the other keys and the body are still read, so one typo costs one field, not the file.
 */

/** A front matter value: text, or a list of texts. */
export type FrontMatterValue = string | string[];

/** A markdown file split into its front matter and its body. */
export interface FrontMatterFile {
  fields: Record<string, FrontMatterValue>;
  /** Each key's value as written on its line (`[issue-number]` stays a text, not a list). */
  raw: Record<string, string>;
  /** The text after the front matter (the whole file when it has none). */
  body: string;
  /** Lines that could not be read, with their 1-based line number in the file. */
  problems: Array<{ line: number; message: string }>;
}

/** Splits `text` into front matter and body. Never throws. */
export function parseFrontMatter(text: string): FrontMatterFile {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") return { fields: {}, raw: {}, body: text, problems: [] };
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === "---");
  if (end < 0) {
    return {
      fields: {},
      raw: {},
      body: text,
      problems: [{ line: 1, message: "front matter opened with --- is never closed" }],
    };
  }
  const fields: Record<string, FrontMatterValue> = {};
  const raw: Record<string, string> = {};
  const problems: FrontMatterFile["problems"] = [];
  let listKey: string | undefined;
  for (let i = 1; i < end; i++) {
    const line = lines[i];
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const item = /^\s+-\s+(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && listKey !== undefined) {
      (fields[listKey] as string[]).push(unquote(item[1].trim()));
      continue;
    }
    const pair = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!pair) {
      problems.push({
        line: i + 1,
        message: `cannot read ${JSON.stringify(line.trim())} (expected key: value)`,
      });
      listKey = undefined;
      continue;
    }
    const [, key, rawValue] = pair;
    const value = rawValue.trim();
    raw[key] = value;
    if (value === "") {
      // `tools:` followed by `- Read` lines, or nothing at all (an empty value).
      fields[key] = [];
      listKey = key;
      continue;
    }
    listKey = undefined;
    if (value.startsWith("[") && value.endsWith("]")) {
      fields[key] = splitList(value.slice(1, -1));
    } else if (isBadlyQuoted(value)) {
      problems.push({ line: i + 1, message: `${key}: unclosed quote in ${value}` });
    } else fields[key] = unquote(value);
  }
  // A key given with no value and no list items is an empty string, as YAML's null reads to a person.
  for (const [key, value] of Object.entries(fields))
    if (Array.isArray(value) && value.length === 0) fields[key] = "";
  return { fields, raw, body: lines.slice(end + 1).join("\n"), problems };
}

/** A comma-separated list (`Read, Grep` or the inside of `[Read, Grep]`) as its trimmed, non-empty items. */
export function splitList(text: string): string[] {
  return text
    .split(",")
    .map((item) => unquote(item.trim()))
    .filter((item) => item !== "");
}

function unquote(value: string): string {
  if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0]) {
    const inner = value.slice(1, -1);
    return value[0] === '"' ? inner.replace(/\\(["\\])/g, "$1") : inner.replace(/''/g, "'");
  }
  return value;
}

function isBadlyQuoted(value: string): boolean {
  return (value[0] === '"' || value[0] === "'") && (value.length < 2 || value.at(-1) !== value[0]);
}
