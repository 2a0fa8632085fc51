/**
 * Build step after `tsc`: bundles the `goat` program (`src/cli/main.ts`) with esbuild into
 * `dist/bin/goat.js`, the package's `bin`.
 * Why: start-up. Unbundled, `goat -p` loads ~200 ES modules (ours and zod's) before its first request,
 * and Node 20's module loader spends more time resolving, reading and linking them than running them;
 * one bundle loads a handful of files. Code splitting keeps every dynamic `import()` a separate chunk
 * (`dist/bin/chunks/`), so the interactive UI, MCP, session listing and the rest stay lazy.
 * The library (`dist/index.js` and the rest of `dist/`, with types) is tsc's output, unchanged, and
 * so is `dist/cli/main.js`: the same program unbundled (slower to start, same behaviour; kept in the
 * checkout for comparison, left out of the package). The bundle lives where tsc never writes, so a
 * later `tsc` run cannot silently swap it for the unbundled one. The CLI's own dependencies (marked,
 * marked-terminal, highlight.js, diff, the MCP SDK's client) are bundled: they are dev dependencies
 * of the package, so a library install does not carry them.
 *
 *   node scripts/bundle-cli.mjs [outdir=dist/bin]     (run by `npm run build`, after tsc)
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import {
  chalkAlwaysColours,
  commonHighlightLanguages,
  hljsHtmlWithoutParse5,
  noEmojiNames,
} from "./cli-bundle-plugins.mjs";
import { writeThirdPartyLicenses } from "./third-party-licenses.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = resolve(process.argv[2] ?? resolve(root, "dist/bin"));

const result = await build({
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
  // Source maps double the package (7 MB for 4 MB of code) and help only under --enable-source-maps:
  // built on request (GOAT_BUNDLE_SOURCEMAP=1) for debugging the bundle, never shipped otherwise.
  sourcemap: process.env.GOAT_BUNDLE_SOURCEMAP === "1",
  // The MCP SDK is an optional peer of the library, but `goat` (installed globally, where no peer is)
  // must speak MCP: its client parts are bundled, into chunks loaded only when a server is configured.
  // OpenTelemetry's API is bundled too (a chunk loaded only when OTEL_* variables ask for traces):
  // the CLI exports them itself (cli/otlp/), and a global install has no peer to find.
  // DBOS and pg are optional peers, loaded only by the durable-session commands (goat worker …).
  external: ["@dbos-inc/dbos-sdk", "pg"],
  // Bundle-only substitutions (colour level, highlight languages, emoji names, the HTML reading of
  // highlighted code): see cli-bundle-plugins.mjs.
  plugins: [chalkAlwaysColours, commonHighlightLanguages, noEmojiNames, hljsHtmlWithoutParse5],
  // A CommonJS dependency that calls require() on a built-in needs a real require in an ES module.
  banner: {
    js: 'import { createRequire as __goatCreateRequire } from "node:module"; const require = __goatCreateRequire(import.meta.url);',
  },
  logLevel: "warning",
  write: false,
  metafile: true,
});

// Tests build this while other test files may be running the program: each file is replaced
// atomically (write aside, rename), and one that is already up to date is not touched at all.
const written = new Set();
for (const file of result.outputFiles) {
  written.add(file.path);
  if (existsSync(file.path) && readFileSync(file.path).equals(file.contents)) {
    // The entry's time says when the bundle was last built (the CLI tests rebuild when src/ is newer).
    if (file.path.endsWith("goat.js")) utimesSync(file.path, new Date(), new Date());
    continue;
  }
  mkdirSync(dirname(file.path), { recursive: true });
  const aside = `${file.path}.${process.pid}.tmp`;
  writeFileSync(aside, file.contents, { mode: file.path.endsWith("goat.js") ? 0o755 : 0o644 });
  renameSync(aside, file.path);
}
// Chunk names carry content hashes: the previous build's chunks (and maps) would otherwise pile up.
const chunks = join(outdir, "chunks");
for (const dir of [outdir, chunks]) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stale = dir === chunks ? !written.has(path) : name.endsWith(".map") && !written.has(path);
    if (stale && !name.endsWith(".tmp")) rmSync(path, { force: true });
  }
}

// The packages the bundle carries are not installed with Goat: their licence notices go beside it.
writeThirdPartyLicenses(
  root,
  result.metafile,
  join(outdir, "THIRD-PARTY-LICENSES.md"),
  "Packages bundled in goat",
);
