/**
 * The markdown renderer as the `goat` bundle ships it (dist/bin/chunks/rich-*.js), where
 * scripts/cli-bundle-plugins.mjs gives cli-highlight a chosen set of highlight.js languages and its
 * own reader of highlight.js's HTML (instead of parse5), and marked-terminal no emoji table. What a
 * user sees must hold: a common language is highlighted, a block with no language is detected, one in
 * an unknown language keeps the plain code colour, and nothing is printed beside the rendered text (a
 * stray line would land on the interactive screen).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { buildIfStale, ROOT } from "./helpers.js";

type RenderMarkdown = (markdown: string, width: number, color: boolean) => string;
let chunkPath: string;
let renderMarkdown: RenderMarkdown;

beforeAll(async () => {
  buildIfStale();
  const chunks = join(ROOT, "dist/bin/chunks");
  const name = readdirSync(chunks).find((file) => /^rich-.*\.js$/.test(file));
  if (!name) throw new Error("the bundle has no rich-*.js chunk");
  chunkPath = join(chunks, name);
  ({ renderMarkdown } = (await import(pathToFileURL(chunkPath).href)) as { renderMarkdown: RenderMarkdown });
}, 120_000);

afterEach(() => {
  vi.restoreAllMocks();
});

const block = (lang: string, code: string) => `\`\`\`${lang}\n${code}\n\`\`\`\n`;
/** The ANSI colour codes (SGR parameters) that open a style in `text`, in order. */
const colours = (text: string) => [...text.matchAll(/\x1b\[(\d+)m/g)].map((m) => Number(m[1]));
const YELLOW = 33; // marked-terminal's plain code colour

describe("the bundled markdown renderer", () => {
  it("highlights the languages a coding agent meets, by name or alias", () => {
    for (const [lang, code] of [
      ["python", "def f(x):\n    return x + 1"],
      ["ts", "const answer: number = 42;"],
      ["rust", "fn main() { let x = 1; }"],
      ["sh", "if true; then echo hi; fi"],
      ["dockerfile", "FROM node:20\nRUN npm ci"],
    ]) {
      const out = renderMarkdown(block(lang, code), 80, true);
      // Keywords get their own colours; an unhighlighted block is all one colour (or none).
      expect(new Set(colours(out)).size, `${lang}: ${JSON.stringify(out)}`).toBeGreaterThan(1);
    }
  });

  it("detects the language of a block that names none", () => {
    const out = renderMarkdown(
      block("", 'import os\nfor name in os.listdir("."):\n    print(name)'),
      80,
      true,
    );
    expect(new Set(colours(out)).size).toBeGreaterThan(1);
  });

  it("shows a block in a language it does not highlight in the code colour, printing nothing else", () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const warnings = vi.spyOn(console, "warn").mockImplementation(() => {});
    const logs = vi.spyOn(console, "log").mockImplementation(() => {});
    for (const lang of ["fortran", "no-such-language"]) {
      const out = renderMarkdown(block(lang, "program hello\n  print *, 'hi'\nend program"), 80, true);
      expect(out).toContain("program hello");
      expect(new Set(colours(out).filter((c) => c !== 39))).toEqual(new Set([YELLOW]));
    }
    expect([...errors.mock.calls, ...warnings.mock.calls, ...logs.mock.calls]).toEqual([]);
  });

  it("keeps the layout without colours", () => {
    const out = renderMarkdown(`# Title\n\n${block("python", "x = 1")}`, 80, false);
    expect(out).not.toMatch(/\x1b\[/);
    expect(out).toContain("x = 1");
  });

  it("stays small: no emoji names table, no highlight.js grammars beyond the chosen set, no parse5", () => {
    // Importing the chunk is on the way to the first answer of every interactive session (0.6 MB:
    // parse5 alone was 0.36 MB, the grammars beyond the set 1.4 MB).
    expect(statSync(chunkPath).size).toBeLessThan(800_000);
  });
});
