/**
 * Build step after `tsc`: bundles the `goat` program (`src/cli/main.ts`) with esbuild into
 * `dist/bin/goat.js`, the package's `bin`.
 * Why: start-up. Unbundled, `goat -p` loads ~200 ES modules (ours and zod's) before its first request,
 * and Node 20's module loader spends more time resolving, reading and linking them than running them;
 * one bundle loads a handful of files. Code splitting keeps every dynamic `import()` a separate chunk
 * (`dist/bin/chunks/`), so the interactive UI, MCP, session listing and the rest stay lazy.
 * The library (`dist/index.js` and the rest of `dist/`, with types) is tsc's output, unchanged, and
 * so is `dist/cli/main.js`: the same program unbundled (slower to start, same behaviour). The bundle
 * lives where tsc never writes, so a later `tsc` run cannot silently swap it for the unbundled one.
 *
 *   node scripts/bundle-cli.mjs [outdir=dist/bin]     (run by `npm run build`, after tsc)
 */
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = resolve(process.argv[2] ?? resolve(root, "dist/bin"));
// Chunk names carry content hashes: without this, every build would leave the previous ones behind.
rmSync(resolve(outdir, "chunks"), { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: { goat: "src/cli/main.ts" },
  outdir,
  entryNames: "[name]",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  // The MCP SDK is large and only loaded when servers are configured: it stays a normal package import.
  external: ["@modelcontextprotocol/sdk"],
  // A CommonJS dependency that calls require() on a built-in needs a real require in an ES module.
  banner: {
    js: 'import { createRequire as __goatCreateRequire } from "node:module"; const require = __goatCreateRequire(import.meta.url);',
  },
  logLevel: "warning",
});
