/**
 * Build step after `tsc`: bundles the entry points the package exports (`exports` in package.json:
 * `.`, `./tools`, `./dbos`, `./testing`, …) with esbuild, replacing tsc's file at the same path
 * (`dist/index.js`, `dist/tools/index.js`, …). The library's own entries are one bundle, the core
 * (`dist/chunks/core.js`), and each of their files re-exports its own names from it; the entries the
 * core never loads (`./dbos`, `./testing`: optional peers, test doubles) are bundles of their own.
 * Everything is bundled together with code splitting, so code shared sits once in `dist/chunks/` and
 * every subpath sees the same module instances (one `GoatError`, one registry). Dynamic `import()`s
 * stay separate chunks, loaded when used. One core rather than one bundle per entry: the root loads
 * nearly all of the library anyway, and fourteen entries split it into some thirty chunks by which
 * entries share each module, while Node's loader pays per file.
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
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative } from "node:path";
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

/** Entries the core never loads (optional peers, the testing kit): bundled apart from it. */
const APART = new Set(["src/dbos/index.ts", "src/testing/index.ts"]);
const coreEntries = entryPoints.filter((file) => !APART.has(file));
/** The core: one module re-exporting every library entry (a name several export is one binding). */
const CORE = "goat-core";
const coreModule = coreEntries.map((file) => `export * from ${JSON.stringify(join(root, file))};`).join("\n");

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

/** Resolves the core's virtual module. */
const corePlugin = {
  name: "goat-core",
  setup(build) {
    build.onResolve({ filter: new RegExp(`^${CORE}$`) }, () => ({ path: CORE, namespace: CORE }));
    build.onLoad({ filter: /.*/, namespace: CORE }, () => ({
      contents: coreModule,
      resolveDir: root,
      loader: "js",
    }));
  },
};

/** The names each library entry exports at run time (types aside), read from a bundle of each. */
async function runtimeExports(files) {
  const probe = await build({
    absWorkingDir: root,
    entryPoints: files,
    outbase: "src",
    outdir: "dist",
    bundle: true,
    write: false,
    platform: "node",
    format: "esm",
    plugins: [packagesPlugin],
    logLevel: "warning",
    metafile: true,
  });
  return new Map(
    Object.values(probe.metafile.outputs)
      .filter((output) => output.entryPoint)
      .map((output) => [output.entryPoint, output.exports]),
  );
}

const exportsOf = await runtimeExports(coreEntries);
const chunks = join(root, "dist/chunks");
const result = await build({
  absWorkingDir: root,
  entryPoints: [{ in: CORE, out: "chunks/core" }, ...entryPoints.filter((file) => APART.has(file))],
  outbase: "src",
  outdir: "dist",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  plugins: [corePlugin, packagesPlugin],
  logLevel: "warning",
  metafile: true,
});

// Each library entry's file: its own names, from the core.
for (const file of coreEntries) {
  const out = join(root, file.replace(/^src\//, "dist/").replace(/\.ts$/, ".js"));
  const core = relative(dirname(out), join(chunks, "core.js"));
  const names = exportsOf.get(file) ?? [];
  writeFileSync(
    out,
    `export { ${names.join(", ")} } from ${JSON.stringify(core.startsWith(".") ? core : `./${core}`)};\n`,
  );
}

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
