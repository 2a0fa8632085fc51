/**
 * The Grep tool (Claude Code's name, input and output text): searches file contents with ripgrep
 * semantics. Runs `rg` when it is on PATH and the built-in search otherwise; both feed one formatter,
 * so the output is the same. `GOAT_GREP_BACKEND=builtin|rg` or `createGrepTool({ backend })` forces one.
 */
import { promises as fsp } from "node:fs";
import path from "node:path";
import { defineTool } from "./define-tool.js";
import { builtinSearch } from "./grep-fallback.js";
import { splitGlobs } from "./grep-filters.js";
import {
  DEFAULT_HEAD_LIMIT,
  formatGrep,
  type GrepDetails,
  type GrepQuery,
  type GrepRaw,
} from "./grep-format.js";
import { regexTimeLimitFrom } from "./regex-worker.js";
import { findRipgrep, ripgrepSearch } from "./ripgrep.js";
import { jsonSchema } from "./tool-schema.js";
import type { Tool, ToolResult } from "./types.js";

/** Which search runs: `auto` uses `rg` when installed. */
export type GrepBackendChoice = "auto" | "rg" | "builtin";

/** Options of `createGrepTool`. */
export interface GrepToolOptions {
  /** Default: `GOAT_GREP_BACKEND` from the environment, else `auto`. */
  backend?: GrepBackendChoice;
}

const GREP_DESCRIPTION = `A powerful search tool built on ripgrep

  Usage:
  - ALWAYS use Grep for search tasks. NEVER invoke \`grep\` or \`rg\` as a Bash command. The Grep tool has been optimized for correct permissions and access.
  - Supports full regex syntax (e.g., "log.*Error", "function\\s+\\w+")
  - Filter files with glob parameter (e.g., "*.js", "**/*.tsx") or type parameter (e.g., "js", "py", "rust")
  - Output modes: "content" shows matching lines, "files_with_matches" shows only file paths (default), "count" shows match counts
  - Pattern syntax: Uses ripgrep (not grep) - literal braces need escaping (use \`interface\\{\\}\` to find \`interface{}\` in Go code)
  - Multiline matching: By default patterns match within single lines only. For cross-line patterns like \`struct \\{[\\s\\S]*?field\`, use \`multiline: true\`
`;

/** Grep input as the model sends it. */
export interface GrepInput {
  pattern: string;
  path?: string;
  glob?: string;
  output_mode?: "content" | "files_with_matches" | "count";
  "-B"?: number;
  "-A"?: number;
  "-C"?: number;
  "-n"?: boolean;
  "-i"?: boolean;
  type?: string;
  head_limit?: number;
  offset?: number;
  multiline?: boolean;
}

/** A count field: a non-negative integer. */
const count = (description: string) => ({
  description,
  type: "integer",
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
});

const grepInput = jsonSchema<GrepInput>(
  {
    type: "object",
    properties: {
      pattern: {
        type: "string",
        minLength: 1,
        description: "The regular expression pattern to search for in file contents",
      },
      path: {
        description: "File or directory to search in (rg PATH). Defaults to current working directory.",
        type: "string",
      },
      glob: {
        description: 'Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob',
        type: "string",
      },
      output_mode: {
        description:
          'Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), "files_with_matches" shows file paths (supports head_limit), "count" shows match counts (supports head_limit). Defaults to "files_with_matches".',
        type: "string",
        enum: ["content", "files_with_matches", "count"],
      },
      "-B": count(
        'Number of lines to show before each match (rg -B). Requires output_mode: "content", ignored otherwise.',
      ),
      "-A": count(
        'Number of lines to show after each match (rg -A). Requires output_mode: "content", ignored otherwise.',
      ),
      "-C": count(
        'Number of lines to show before and after each match (rg -C). Requires output_mode: "content", ignored otherwise.',
      ),
      "-n": {
        description:
          'Show line numbers in output (rg -n). Requires output_mode: "content", ignored otherwise. Defaults to true.',
        type: "boolean",
      },
      "-i": { description: "Case insensitive search (rg -i)", type: "boolean" },
      type: {
        description:
          "File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient than include for standard file types.",
        type: "string",
      },
      head_limit: count(
        `Limit output to first N lines/entries, equivalent to "| head -N". Works across all output modes. Defaults to ${DEFAULT_HEAD_LIMIT}; pass 0 for unlimited.`,
      ),
      offset: count(
        'Skip first N lines/entries before applying head_limit, equivalent to "| tail -n +N | head -N". Defaults to 0.',
      ),
      multiline: {
        description:
          "Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false.",
        type: "boolean",
      },
    },
    required: ["pattern"],
  },
  { removeAdditional: true },
);

/** Makes a Grep tool; the backend can be forced (tests run both). */
export function createGrepTool(options: GrepToolOptions = {}): Tool<GrepInput, GrepDetails> {
  return defineTool<GrepInput, GrepDetails>({
    name: "Grep",
    description: GREP_DESCRIPTION,
    inputSchema: grepInput,
    sideEffect: "none",
    async execute(input, ctx): Promise<ToolResult<GrepDetails>> {
      const target = input.path ?? ctx.cwd;
      if (!path.isAbsolute(target)) {
        return { content: `path must be an absolute path, got "${target}".`, isError: true };
      }
      const stats = await fsp.stat(target).catch(() => undefined);
      if (!stats) {
        return {
          content: `Path does not exist: ${target}. Check the path, or omit it to search the working directory.`,
          isError: true,
        };
      }
      // A FIFO waits for ever for a writer and a device such as /dev/zero never ends: either would
      // hold the search until the tool's time limit. Read refuses them the same way.
      if (!stats.isFile() && !stats.isDirectory()) {
        return {
          content: `${target} is not a regular file or a directory (a device, FIFO or socket) and cannot be searched.`,
          isError: true,
        };
      }
      if (!input.multiline && /(^|[^\\])\\n/.test(input.pattern)) {
        return {
          content: `The pattern contains \\n, which never matches within a single line. Set multiline: true to match across lines.`,
          isError: true,
        };
      }
      const mode = input.output_mode ?? "files_with_matches";
      const query: GrepQuery = {
        pattern: input.pattern,
        path: target,
        globs: splitGlobs(input.glob),
        type: input.type,
        mode,
        ignoreCase: input["-i"] ?? false,
        before: input["-C"] ?? input["-B"] ?? 0,
        after: input["-C"] ?? input["-A"] ?? 0,
        multiline: input.multiline ?? false,
        signal: ctx.signal,
      };
      const backend = pickBackend(options.backend, ctx.env ?? process.env);
      let raw: GrepRaw;
      try {
        raw = backend.rg
          ? await ripgrepSearch(query, backend.rg)
          : await builtinSearch(query, regexTimeLimitFrom(ctx.env ?? process.env));
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        return { content: (err as Error).message, isError: true };
      }
      const { text, details } = await formatGrep(raw, {
        showLineNumbers: input["-n"] ?? true,
        headLimit: input.head_limit ?? DEFAULT_HEAD_LIMIT,
        offset: input.offset ?? 0,
        withContext: mode === "content" && (query.before > 0 || query.after > 0),
        backend: backend.rg ? "rg" : "builtin",
      });
      return { content: text, details };
    },
  });
}

/** The Grep tool with the default backend choice (`GOAT_GREP_BACKEND`, else ripgrep when installed). */
export const grepTool: Tool<GrepInput, GrepDetails> = createGrepTool();

/** Resolves the backend per call, so installing ripgrep or changing the environment takes effect. */
function pickBackend(
  choice: GrepBackendChoice | undefined,
  env: Record<string, string | undefined>,
): { rg?: string } {
  const wanted = choice ?? parseChoice(env.GOAT_GREP_BACKEND);
  if (wanted === "builtin") return {};
  const rg = findRipgrep(env.PATH);
  if (wanted === "rg" && !rg) throw new Error("GOAT_GREP_BACKEND=rg but ripgrep (rg) is not on PATH.");
  return rg ? { rg } : {};
}

function parseChoice(value: string | undefined): GrepBackendChoice {
  return value === "rg" || value === "builtin" ? value : "auto";
}
