/**
 * The string-replacement core of Edit, as pure functions: find `old_string` (matching LF in it
 * against a CRLF file), insist on exactly one match unless `replace_all`, and explain a miss (a
 * whitespace, line-ending or quote difference, or line-number prefixes copied from Read).
 */

/** The outcome of planning an edit: the new content, or the error text for the model. */
export type EditPlan =
  | { ok: true; content: string; replacements: number; firstIndex: number; insertedText: string }
  | { ok: false; message: string };

/** The line endings a text uses. */
type LineEndings = "lf" | "crlf" | "mixed" | "none";

/** Which line endings `text` uses. */
function detectLineEndings(text: string): LineEndings {
  const crlf = countOccurrences(text, "\r\n");
  const lf = countOccurrences(text, "\n");
  if (lf === 0) return "none";
  if (crlf === 0) return "lf";
  return crlf === lf ? "crlf" : "mixed";
}

/**
 * Replaces `oldString` with `newString` in `content`. In a CRLF file, LF line breaks in both strings
 * are turned into CRLF first so the model's LF text matches and the file keeps its endings.
 */
export function planEdit(
  content: string,
  oldString: string,
  newString: string,
  replaceAll: boolean,
): EditPlan {
  const endings = detectLineEndings(content);
  let find = oldString;
  let replace = newString;
  if (endings === "crlf") {
    find = toCrlf(oldString);
    replace = toCrlf(newString);
  } else if (endings === "lf" || endings === "none") {
    // The model sent CRLF to an LF file: match and write the file's own endings.
    find = oldString.replace(/\r\n/g, "\n");
    replace = newString.replace(/\r\n/g, "\n");
  }
  const count = countOccurrences(content, find);
  if (count === 0) return { ok: false, message: notFoundMessage(content, oldString, endings) };
  if (count > 1 && !replaceAll) {
    const lines = matchLineNumbers(content, find).slice(0, 10).join(", ");
    return {
      ok: false,
      message:
        `Found ${count} matches of the string to replace, but replace_all is false (at lines ${lines}). ` +
        "To replace all occurrences, set replace_all to true. To replace only one occurrence, " +
        "provide more surrounding context in old_string to identify the instance uniquely.",
    };
  }
  const firstIndex = content.indexOf(find);
  const updated = replaceAll
    ? content.split(find).join(replace)
    : content.slice(0, firstIndex) + replace + content.slice(firstIndex + find.length);
  return {
    ok: true,
    content: updated,
    replacements: replaceAll ? count : 1,
    firstIndex,
    insertedText: replace,
  };
}

/** Non-overlapping occurrences of `needle` in `haystack` (0 for an empty needle). */
function countOccurrences(haystack: string, needle: string): number {
  if (needle.length === 0) return 0;
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) count++;
  return count;
}

function matchLineNumbers(content: string, needle: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let scanned = 0;
  for (let i = content.indexOf(needle); i !== -1; i = content.indexOf(needle, i + needle.length)) {
    line += countOccurrences(content.slice(scanned, i), "\n");
    scanned = i;
    lines.push(line);
  }
  return lines;
}

function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}

/** Line endings to LF, trailing spaces dropped, curly quotes made straight: what "looks the same". */
function loosen(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"');
}

function notFoundMessage(content: string, oldString: string, endings: LineEndings): string {
  const head = `String to replace not found in file.\nString: ${oldString}`;
  if (/^ *\d+\t/.test(oldString)) {
    return `${head}\nold_string seems to start with a line-number prefix from Read output ("   12<tab>"). Remove the prefixes and use only the file's text.`;
  }
  const loose = loosen(oldString);
  if (loose.length > 0 && loosen(content).includes(loose)) {
    const why =
      endings === "mixed" && /\r|\n/.test(oldString)
        ? "The file mixes CRLF and LF line endings, and old_string matches only if line endings are ignored. " +
          "Edit a single line at a time there, or use Bash to normalise the line endings first."
        : "old_string matches only when whitespace, line endings or quote characters are ignored. " +
          "Read the file again and copy the exact text (including indentation and trailing spaces).";
    return `${head}\n${why}`;
  }
  return `${head}\nRead the file again and copy old_string exactly as it appears.`;
}
