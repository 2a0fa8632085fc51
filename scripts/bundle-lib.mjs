/**
 * Build step after `tsc`: bundles each entry point the package exports (`exports` in package.json:
 * `.`, `./dbos`, `./testing`, …) with esbuild, replacing tsc's file at the same path (`dist/index.js`,
 * `dist/dbos/index.js`, …). The entry points are bundled together with code splitting, so code they
 * share sits once in `dist/chunks/` and every subpath sees the same module instances (one `GoatError`,
 * one registry). Dynamic `import()`s stay separate chunks, loaded when used.
 * Why: start-up. Node 20's ES module loader spends more time finding, reading and linking files than
 * running them; `import("goat-agent")` loaded some 170 of tsc's files, the bundle a handful. See
 * bench/import.mjs. Dependencies and peers stay imports: they are installed with Goat or by the user,
 * and optional peers (zod, the MCP SDK, OpenTelemetry, DBOS) load only when used. A package the
 * library uses that is only a dev dependency is bundled instead (turndown for WebFetch: its DOM
 * library ships 6 MB of tests an install would carry), in the lazy chunk that uses it, with its
 * licence notice in dist/THIRD-PARTY-LICENSES.md.
 * Types are tsc's `.d.ts` files, unchanged; tsc's other `.js` files stay in the checkout for the
 * benchmarks and are left out of the package (`files`).
 *
 *   node scripts/bundle-lib.mjs        (run by `npm run build`, after tsc)
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { writeThirdPartyLicenses } from "./third-party-licenses.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** `./dist/dbos/index.js` → `src/dbos/index.ts`, for every export with an `import` condition. */
const entryPoints = Object.values(pkg.exports)
  .map((target) => (typeof target === "string" ? target : target.import))
  .filter((file) => typeof file === "string" && /^\.\/dist\/.+\.js$/.test(file))
  .map((file) => file.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));

/** Packages installed with Goat or by the user: imported at run time, never bundled. */
const imported = new Set([
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
]);
const packageName = (specifier) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/**
 * Bare imports from Goat's sources: a dependency or peer stays an import; a dev dependency is bundled
 * (with what it imports in turn); anything else is a mistake the build stops on.
 */
const packagesPlugin = {
  name: "goat-packages",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("node:") || builtinModules.includes(args.path)) return { external: true };
      if (args.importer.includes("/node_modules/")) return undefined; // inside a bundled package
      const name = packageName(args.path);
      if (imported.has(name)) return { path: args.path, external: true };
      if (pkg.devDependencies?.[name]) return undefined;
      return { errors: [{ text: `${args.importer} imports ${name}, which package.json does not list` }] };
    });
  },
};

const chunks = join(root, "dist/chunks");
const result = await build({
  absWorkingDir: root,
  entryPoints,
  outbase: "src",
  outdir: "dist",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  plugins: [packagesPlugin],
  logLevel: "warning",
  metafile: true,
});

writeThirdPartyLicenses(
  root,
  result.metafile,
  join(root, "dist/THIRD-PARTY-LICENSES.md"),
  "Packages bundled in goat-agent's library",
);

// Chunk names carry content hashes: the previous build's chunks would otherwise pile up.
const written = new Set(Object.keys(result.metafile.outputs).map((file) => join(root, file)));
for (const name of readdirSync(chunks)) {
  if (!written.has(join(chunks, name))) rmSync(join(chunks, name), { force: true });
}
