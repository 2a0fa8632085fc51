/**
 * Build step after `tsc`: copies the bash grammar the permission layer parses command lines with into
 * `dist/vendor/tree-sitter/` — the tree-sitter runtime (web-tree-sitter's JS and WASM) and the
 * tree-sitter-bash grammar, byte for byte from the `@vscode/tree-sitter-wasm` dev dependency, with its
 * MIT licence notice. That package holds 16 grammars (22 MB) of which Goat loads one; the three files
 * it uses are 1.8 MB. The runtime is renamed `.cjs`: it is a CommonJS file inside an ES-module package.
 * `src/permissions/shell-parser.ts` finds the copy next to the built code (the library and the CLI
 * bundle alike), and falls back to the dev dependency when running from source.
 *
 *   node scripts/vendor-tree-sitter.mjs [outdir=dist/vendor/tree-sitter]   (run by `npm run build`)
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = resolve(process.argv[2] ?? join(root, "dist/vendor/tree-sitter"));
const require = createRequire(join(root, "package.json"));
const source = dirname(require.resolve("@vscode/tree-sitter-wasm")); // .../wasm
const pkg = join(source, "..");
const { version } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));

/** What is copied, and the name it gets. */
const FILES = [
  ["tree-sitter.js", "tree-sitter.cjs"],
  ["tree-sitter.wasm", "tree-sitter.wasm"],
  ["tree-sitter-bash.wasm", "tree-sitter-bash.wasm"],
];

mkdirSync(outdir, { recursive: true });
for (const [from, to] of FILES) copyFileSync(join(source, from), join(outdir, to));
writeFileSync(
  join(outdir, "LICENSE"),
  `The files in this directory are copied unchanged (tree-sitter.js renamed tree-sitter.cjs) from the npm
package @vscode/tree-sitter-wasm ${version} (https://github.com/microsoft/vscode-tree-sitter-wasm):
the tree-sitter runtime (web-tree-sitter, https://github.com/tree-sitter/tree-sitter, MIT) and the
tree-sitter-bash grammar (https://github.com/tree-sitter/tree-sitter-bash, MIT), compiled to WASM.
That package's licence follows.

${readFileSync(join(pkg, "LICENSE"), "utf8").replace(/^ {4}/gm, "")}`,
);
