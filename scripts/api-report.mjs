/**
 * The public API reports: one `etc/<entry>.api.md` per entry point of package.json `exports`, written by
 * API Extractor from the built `.d.ts` files. A report lists every exported name with its signature, so
 * a change of the public surface is a visible diff in review.
 *
 *   node scripts/api-report.mjs           rewrite the reports (`npm run api`; commit what changed)
 *   node scripts/api-report.mjs --check   fail when a report differs from what the code exports (`npm test`)
 *
 * Besides comparing, both modes fail when
 * - an entry point's API names a type that no entry point exports (a user could not write it down;
 *   a type exported by a sibling entry, such as `Provider` from `goat-agent/providers` named by the
 *   root's `ProviderSpec`, is fine), or
 * - an exported name has no doc comment.
 *
 * API Extractor reads one entry point per run; the runs share one TypeScript program (`CompilerState`),
 * so the declarations are parsed once. Needs `npm run build` first (it reads dist/).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CompilerState, Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const ROOT = resolve(import.meta.dirname, "..");
const REPORTS = join(ROOT, "etc");
const check = process.argv.includes("--check");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** `{ subpath, dts, report }` per entry point: "." is `goat-agent`, "./tools" is `goat-agent-tools`. */
const entries = Object.entries(pkg.exports).map(([subpath, target]) => {
  if (typeof target?.types !== "string") throw new Error(`package.json exports["${subpath}"] has no "types"`);
  const report = subpath === "." ? pkg.name : `${pkg.name}-${subpath.slice(2).replaceAll("/", "-")}`;
  return { subpath, dts: join(ROOT, target.types), report };
});
const missing = entries.filter((entry) => !existsSync(entry.dts));
if (missing.length > 0) {
  console.error(`${missing.map((e) => e.dts).join(", ")} missing: run \`npm run build\` first.`);
  process.exit(1);
}

/** API Extractor's settings for one entry point: the report goes to etc/, the fresh one to `temp`. */
function configFor(entry, temp) {
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: ROOT,
      newlineKind: "lf",
      mainEntryPointFilePath: entry.dts,
      compiler: { tsconfigFilePath: join(ROOT, "tsconfig.build.json") },
      apiReport: {
        enabled: true,
        reportFileName: entry.report,
        reportFolder: REPORTS,
        reportTempFolder: temp,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: "warning" } },
        extractorMessageReporting: {
          default: { logLevel: "warning", addToApiReportFile: false },
          // Judged below across all entry points, not per entry.
          "ae-forgotten-export": { logLevel: "none", addToApiReportFile: false },
          // Members without a comment show as "(undocumented)" in the report; exports are checked below.
          "ae-undocumented": { logLevel: "none", addToApiReportFile: false },
          // Goat uses no release tags (@public, @beta): everything exported is public.
          "ae-missing-release-tag": { logLevel: "none", addToApiReportFile: false },
        },
        // Doc comments are prose for readers, not TSDoc for a documentation generator.
        tsdocMessageReporting: { default: { logLevel: "none", addToApiReportFile: false } },
      },
    },
    configObjectFullPath: join(ROOT, "api-extractor.json"),
    packageJsonFullPath: join(ROOT, "package.json"),
  });
}

const temp = mkdtempSync(join(tmpdir(), "goat-api-report-"));
mkdirSync(REPORTS, { recursive: true });
const problems = [];
const changed = [];
/** Types an entry's API names without exporting them: `{ entry, name }`. */
const forgotten = [];
try {
  const configs = entries.map((entry) => configFor(entry, temp));
  const compilerState = CompilerState.create(configs[0], {
    additionalEntryPoints: entries.slice(1).map((entry) => entry.dts),
  });
  for (const [i, entry] of entries.entries()) {
    const result = Extractor.invoke(configs[i], {
      localBuild: !check,
      compilerState,
      messageCallback(message) {
        message.handled = true;
        if (message.messageId === "ae-forgotten-export") {
          forgotten.push({
            entry: entry.subpath,
            name: /symbol "([^"]+)"/.exec(message.text)?.[1] ?? message.text,
          });
        } else if (message.messageId.startsWith("console-")) {
          // Progress lines; the summary below says what changed.
        } else if (message.logLevel === "error" || message.logLevel === "warning") {
          const where = message.sourceFilePath
            ? ` (${message.sourceFilePath.replace(`${ROOT}/`, "")}:${message.sourceFileLine})`
            : "";
          problems.push(`${entry.subpath}: ${message.messageId}: ${message.text}${where}`);
        }
      },
    });
    if (result.apiReportChanged) changed.push(entry);
  }

  // What each fresh report exports, and which exports carry no doc comment.
  const exported = new Set();
  for (const entry of entries) {
    const lines = readFileSync(join(temp, `${entry.report}.api.md`), "utf8").split("\n");
    lines.forEach((line, i) => {
      const name =
        /^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|let|enum|namespace) (\w+)/.exec(
          line,
        )?.[1] ?? /^export \{ (\w+) \}/.exec(line)?.[1];
      if (!name) return;
      exported.add(name);
      if (/\(undocumented\)/.test(lines[i - 1] ?? "")) {
        problems.push(`${entry.subpath}: ${name} has no doc comment; say in one line what it is for.`);
      }
    });
  }
  const seen = new Set();
  for (const { entry, name } of forgotten) {
    if (exported.has(name) || seen.has(`${entry} ${name}`)) continue;
    seen.add(`${entry} ${name}`);
    problems.push(
      `${entry}: its API names the type ${name}, which no entry point exports; export it from the entry it belongs to.`,
    );
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}

const reportList = (list) => list.map((entry) => `etc/${entry.report}.api.md`).join(", ");
if (problems.length > 0) console.error(problems.join("\n"));
if (check && changed.length > 0) {
  console.error(
    `The public API changed: ${reportList(changed)} ${changed.length === 1 ? "differs" : "differ"} from what the package exports.\n` +
      "If the change is meant, run `npm run api`, review `git diff etc/`, and commit the updated reports.",
  );
}
if (!check)
  console.log(changed.length > 0 ? `Updated ${reportList(changed)}.` : "The API reports are up to date.");
process.exit(problems.length > 0 || (check && changed.length > 0) ? 1 : 0);
