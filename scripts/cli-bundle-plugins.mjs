/**
 * The esbuild plugins of the `goat` bundle (scripts/bundle-cli.mjs): where the bundle takes a
 * dependency's module other than the one the dependency asks for. Each substitution is bundle-only
 * (the library and tsc's unbundled `dist/cli/main.js` keep the packages as published) and says why.
 */
import { fileURLToPath } from "node:url";

/**
 * A plugin that answers `filter` imports made from inside a package matching `importer` with the
 * module `contents` (in its own namespace), leaving every other importer's resolution alone.
 */
function replaceImport(name, filter, importer, contents) {
  return {
    name,
    setup(b) {
      b.onResolve({ filter }, (args) =>
        importer.test(args.importer) ? { path: name, namespace: `goat-${name}` } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: `goat-${name}` }, () => ({ contents, loader: "js" }));
    },
  };
}

/**
 * chalk (under marked-terminal's styles and cli-highlight's code colours) decides on colours once, when
 * loaded, with supports-color, which says "none" whenever a `CI` variable is set, even on a terminal:
 * code blocks then showed uncoloured in an interactive goat run with `CI` set. goat makes that decision
 * itself (`src/cli/style.ts`: a terminal, not TERM=dumb, no NO_COLOR) and strips the ANSI from the
 * rendered markdown when colours are off, so in the bundle chalk's supports-color always answers
 * basic colours (level 1: the named colours these styles use). Only chalk's own imports are redirected.
 */
export const chalkAlwaysColours = replaceImport(
  "chalk-always-colours",
  /^(#?supports-color)$/,
  /[\\/]chalk[\\/]/,
  [
    "const level = { level: 1, hasBasic: true, has256: false, has16m: false };",
    "export const stdout = level;",
    "export const stderr = level;",
    "export default { stdout, stderr };",
  ].join("\n"),
);

/**
 * The languages code blocks are highlighted in: highlight.js's "common" set (the one its own default
 * web build ships) and a few more a coding agent meets often. cli-highlight asks for all of
 * highlight.js, which registers 191 languages when loaded: 1.4 MB of the 2.4 MB markdown chunk, about
 * 45 ms of the first answer's rendering in every interactive session (measured: importing the chunk
 * 91 -> 50 ms of CPU). A block in a language outside the set is shown in the plain code colour, as
 * one in a language highlight.js does not know always was; one with no language is detected among
 * these only.
 */
export const HIGHLIGHT_LANGUAGES = [
  "bash",
  "c",
  "cpp",
  "csharp",
  "css",
  "diff",
  "go",
  "ini",
  "java",
  "javascript",
  "json",
  "kotlin",
  "less",
  "lua",
  "makefile",
  "markdown",
  "objectivec",
  "perl",
  "php",
  "php-template",
  "plaintext",
  "python",
  "python-repl",
  "r",
  "ruby",
  "rust",
  "scss",
  "shell",
  "sql",
  "swift",
  "typescript",
  "vbnet",
  "xml",
  "yaml",
  // Beyond highlight.js's common set:
  "dockerfile",
  "powershell",
  "dos",
  "scala",
  "dart",
  "elixir",
  "haskell",
  "groovy",
  "nginx",
  "protobuf",
  "properties",
  "cmake",
];

/**
 * cli-highlight's `require("highlight.js")` gets highlight.js's core with HIGHLIGHT_LANGUAGES only,
 * and a `highlight` that refuses an unknown language without printing.
 */
export const commonHighlightLanguages = {
  name: "common-highlight-languages",
  setup(b) {
    b.onResolve({ filter: /^highlight\.js$/ }, (args) => ({
      path: "highlight.js (common languages)",
      namespace: "goat-highlight",
      pluginData: { resolveDir: args.resolveDir },
    }));
    b.onLoad({ filter: /.*/, namespace: "goat-highlight" }, (args) => ({
      // Resolved from the importer's folder, so it is the highlight.js cli-highlight depends on.
      resolveDir: args.pluginData.resolveDir,
      contents: [
        'const hljs = require("highlight.js/lib/core");',
        ...HIGHLIGHT_LANGUAGES.map(
          (name) =>
            `hljs.registerLanguage(${JSON.stringify(name)}, require(${JSON.stringify(`highlight.js/lib/languages/${name}`)}));`,
        ),
        // highlight.js writes "Could not find the language …" to the console before it throws for a
        // language it does not know: in the interactive UI that line landed on the screen. The caller
        // (cli-highlight, under marked-terminal) catches the error and shows the block in the plain
        // code colour, so the unknown language is refused here, quietly, before highlight.js sees it.
        "const highlight = hljs.highlight.bind(hljs);",
        "hljs.highlight = (code, options) => {",
        '  if (options && typeof options === "object" && !hljs.getLanguage(options.language)) {',
        '    throw new Error("Unknown language: " + options.language);',
        "  }",
        "  return highlight(code, options);",
        "};",
        "module.exports = hljs;",
      ].join("\n"),
      loader: "js",
    }));
  },
};

/**
 * marked-terminal imports node-emoji for its `emoji` option (":smile:" to a glyph), which goat turns
 * off (src/cli/rich/markdown.ts): the names table (emojilib, 320 KB) would be loaded for nothing.
 * marked-terminal calls only `get` from it, and only with the option on.
 */
export const noEmojiNames = replaceImport(
  "no-emoji-names",
  /^node-emoji$/,
  /[\\/]marked-terminal[\\/]/,
  "export function get() { return undefined; }",
);

/**
 * cli-highlight parses highlight.js's HTML with parse5, a whole HTML5 parser (356 KB of the markdown
 * chunk); highlight.js writes only `<span class="…">`, `</span>` and escaped text, which
 * scripts/hljs-html-fragment.mjs reads into the same nodes.
 */
export const hljsHtmlWithoutParse5 = {
  name: "hljs-html-without-parse5",
  setup(b) {
    b.onResolve({ filter: /^parse5(-htmlparser2-tree-adapter)?$/ }, (args) =>
      /[\\/]cli-highlight[\\/]/.test(args.importer)
        ? { path: fileURLToPath(new URL("./hljs-html-fragment.mjs", import.meta.url)) }
        : undefined,
    );
  },
};
