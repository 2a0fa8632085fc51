/**
 * The README's TypeScript samples as files a compiler can check. Samples are fragments: they use a few
 * placeholder names (`prompt`, `sessionId`, `askUser`, `render`) that stand for the reader's own code,
 * so those are declared when a sample uses them without defining them. A block preceded by
 * `<!-- no-typecheck -->` (for example one written against another package) is left out.
 */

/** One ```ts block of the README, ready to compile. */
export interface ReadmeSample {
  /** The README line the block starts on, for error messages. */
  line: number;
  /** The block's code with the placeholder declarations it needs. */
  source: string;
}

const PLACEHOLDERS: Record<string, string> = {
  prompt: "declare const prompt: string;",
  sessionId: "declare const sessionId: string;",
  askUser: "declare function askUser(tool: string, input: unknown): Promise<boolean>;",
  render: "declare function render(...values: unknown[]): void;",
};

/** Every ```ts / ```typescript block of `readme`, in order. */
export function readmeTypeScriptSamples(readme: string, _packageName: string): ReadmeSample[] {
  const lines = readme.split("\n");
  const samples: ReadmeSample[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i])) continue;
    const skipped =
      /<!--\s*no-typecheck\s*-->/.test(lines[i - 1] ?? "") ||
      /<!--\s*no-typecheck\s*-->/.test(lines[i - 2] ?? "");
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    if (!skipped) samples.push({ line: start, source: withPlaceholders(lines.slice(start, end).join("\n")) });
    i = end;
  }
  return samples;
}

function withPlaceholders(code: string): string {
  const declarations = Object.entries(PLACEHOLDERS)
    .filter(([name]) => new RegExp(`\\b${name}\\b`).test(code))
    .filter(([name]) => !new RegExp(`\\b(const|let|var|function)\\s+${name}\\b`).test(code))
    .map(([, declaration]) => declaration);
  return [...declarations, code, "export {};", ""].join("\n");
}
