/**
 * The layer order of src/, checked by `npm run lint` (dependency-cruiser). Each layer imports only the
 * layers listed before it; layers on one line are peers and do not import each other. Type-only imports
 * count: a layer that needs a type from above is a layer in the wrong place (move the type down).
 *
 * To place a new folder, add it where what it imports is below it and what imports it is above it.
 *
 * The CLI is a user of the library like any other: it imports only the package's entry points (the
 * files package.json `exports` names, mapped back from dist/ to src/) and its own files. One exception:
 * the base layer (`src/errors.ts`, `src/version.ts`), which the root re-exports whole. The start-up
 * path (`main.ts`, `args.ts`) imports it directly, because the bundler treats every re-export of a
 * barrel as live for each chunk that touches it: `GOAT_VERSION` taken from `src/index.ts` would load
 * the whole library before `goat --version` could answer (23 KB of modules become 900 KB).
 */
const { readFileSync } = require("node:fs");
const { join } = require("node:path");

const layers = [
  { name: "base", paths: ["src/errors\\.ts$", "src/version\\.ts$"] }, // the error base class, the version
  { name: "schema", paths: ["src/schema/"] }, // Standard Schema, Goat's JSON Schema validator, schema → JSON Schema
  { name: "llm", paths: ["src/llm/"] }, // providers, neutral messages, retry, catalog
  { name: "sandbox", paths: ["src/sandbox/"] }, // the OS sandbox a process can run in
  { name: "tools", paths: ["src/tools/"] }, // the tool contract and the core tools
  { name: "permissions, hooks", paths: ["src/permissions/", "src/hooks/"] }, // policy, unaware of the loop
  { name: "session", paths: ["src/session/"] }, // transcripts: the SessionStore and the JSONL store
  { name: "settings", paths: ["src/settings/"] }, // settings files (hooks, sandbox, permissions)
  { name: "mcp", paths: ["src/mcp/"] }, // MCP servers' tools as Goat tools
  { name: "loop", paths: ["src/loop/"] }, // the loop core: no policy, no SDK shapes
  { name: "compaction", paths: ["src/compaction/"] }, // the default Compactor the loop is given
  { name: "telemetry", paths: ["src/telemetry/"] }, // OpenTelemetry spans, a consumer of agent events
  { name: "runtime", paths: ["src/runtime/"] }, // wires policy into the loop for one session
  { name: "sdk", paths: ["src/sdk/"] }, // query(), Query, Agent: the Claude-Agent-SDK-compatible surface
  { name: "dbos", paths: ["src/dbos/"] }, // durable sessions (goat-agent/dbos), never loaded by the core
  { name: "index", paths: ["src/index\\.ts$"] }, // the root export (the subpath entries sit in their folders)
  // The goat program; the testing kit (goat-agent/testing: the mock provider, record/replay).
  { name: "cli, testing", paths: ["src/cli/", "src/testing/"] },
];

/** The source file of each entry point in package.json `exports` (`./dist/llm/index.js` → `src/llm/index.ts`). */
const packageJson = JSON.parse(readFileSync(join(__dirname, "package.json"), "utf8"));
const entryPoints = Object.values(packageJson.exports).map((target) =>
  target.import.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"),
);
const escapeRegExp = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** What the CLI may import besides its own files: the entry points, and the base layer they re-export. */
const cliMayImport = [...entryPoints, "src/errors.ts", "src/version.ts"];

const anchored = (paths) => paths.map((p) => `^${p}`);
const ruleName = (layer) => layer.name.replace(/, /g, "-");

/** One rule per layer: it imports nothing from the layers after it. */
const layerRules = layers.slice(0, -1).map((layer, rank) => ({
  name: `layer-${ruleName(layer)}`,
  comment: `${layer.name} imports only the layers before it in .dependency-cruiser.cjs`,
  severity: "error",
  from: { path: anchored(layer.paths) },
  to: { path: anchored(layers.slice(rank + 1).flatMap((later) => later.paths)) },
}));

/** Peers (several folders at one rank) import within their own folder but not each other's. */
const peerRules = layers
  .filter((layer) => layer.paths.length > 1)
  .flatMap((layer) =>
    layer.paths.map((own) => ({
      name: `peers-${ruleName(layer)}`,
      comment: `${own} does not import its peers in the ${layer.name} layer`,
      severity: "error",
      from: { path: `^${own}` },
      to: { path: anchored(layer.paths.filter((other) => other !== own)) },
    })),
  );

/** The layers below the SDK surface: they speak Goat's neutral shapes, never Claude's. */
const belowSdk = layers.slice(
  0,
  layers.findIndex((layer) => layer.name === "sdk"),
);

module.exports = {
  forbidden: [
    ...layerRules,
    ...peerRules,
    {
      name: "claude-shapes-only-in-sdk",
      comment:
        "Claude's shapes (SDK messages, QueryOptions, Claude tool responses) live in src/sdk/; the layers below it speak Goat's neutral types, so a second surface can sit beside the SDK",
      severity: "error",
      from: { path: anchored(belowSdk.flatMap((layer) => layer.paths)) },
      to: { path: "^src/sdk/" },
    },
    {
      name: "sdk-drives-the-session",
      comment:
        "The SDK surface drives a Session (src/runtime/session.ts) and takes the loop's shapes from it, never the loop itself",
      severity: "error",
      from: { path: "^src/sdk/" },
      to: { path: "^src/loop/" },
    },
    {
      name: "cli-uses-entry-points",
      comment:
        "The CLI imports only what the package exports (src/index.ts and the subpath entries of package.json exports), so whatever it needs is public and documented",
      severity: "error",
      from: { path: "^src/cli/" },
      to: { path: "^src/", pathNot: ["^src/cli/", ...cliMayImport.map((file) => `^${escapeRegExp(file)}$`)] },
    },
    {
      name: "library-imports-modules-not-entries",
      comment:
        "Inside the library a file imports the module it needs, not an entry point: a barrel makes the bundler load everything the entry re-exports",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/cli/" },
      to: { path: entryPoints.map((file) => `^${escapeRegExp(file)}$`) },
    },
    {
      name: "no-folder-cycles",
      comment:
        "Folders form no cycle: two folders that need each other are one concept, or one holds a piece of the other",
      severity: "error",
      scope: "folder",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-file-cycles",
      comment:
        "Files form no import cycle, type-only imports included: two files that need each other are one concept, or one holds a piece the other should import",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "core-never-loads-dbos-or-serve",
      comment:
        "Durable execution and the viewer are loaded by the CLI (and goat-agent/dbos) only, never by the library core",
      severity: "error",
      from: { pathNot: "^src/(cli|dbos)/" },
      to: { path: "^src/(dbos|cli/serve)/" },
    },
    {
      name: "library-never-loads-testing",
      comment:
        "The testing kit is for users' tests and ours; nothing of the library (nor the root export) loads it",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/testing/" },
      to: { path: "^src/testing/" },
    },
    {
      name: "imports-resolve",
      comment: "A relative import the checker cannot resolve would be invisible to the rules above",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, path: "^[.][.]?/" },
    },
    {
      name: "every-src-file-has-a-layer",
      comment: "A new folder under src/ gets its place in the layer list above",
      severity: "error",
      from: {
        path: "^src/",
        pathNot: anchored(layers.flatMap((l) => l.paths)),
      },
      to: {},
    },
  ],
  options: {
    // Packages are leaves: their own imports are theirs. (Not `includeOnly`, which would also hide an
    // import that does not resolve.)
    doNotFollow: { path: "node_modules" },
    // Type-only imports are dependencies too: they tie a layer to the shapes of the one it names.
    tsPreCompilationDeps: true,
    moduleSystems: ["es6"],
    skipAnalysisNotInRules: true,
  },
};
