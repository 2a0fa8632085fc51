/**
 * The licence notices of the npm packages a bundle carries (marked, highlight.js, the MCP SDK's client
 * in the `goat` bundle; turndown in the library's), written beside the bundle: those packages are not
 * installed with Goat, so the bundle is their only copy and their notices must travel with it.
 * Used by scripts/bundle-cli.mjs and scripts/bundle-lib.mjs with esbuild's metafile.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The package directory (`…/node_modules/@scope/name`) an input path of a metafile lies in, if any. */
function packageDirOf(root, input) {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return match ? join(root, match[1]) : undefined;
}

/**
 * Writes `file`: for each package bundled (from `metafile.inputs`), its name, version, licence and the
 * text of its licence file. Returns the packages' names.
 */
export function writeThirdPartyLicenses(root, metafile, file, title) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const dir = packageDirOf(root, input);
    if (dir) dirs.add(dir);
  }
  const sections = [];
  const names = [];
  for (const dir of [...dirs].sort()) {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const licenceFile = readdirSync(dir).find((name) => /^(licen[cs]e|copying)([.-]|$)/i.test(name));
    const text = licenceFile
      ? readFileSync(join(dir, licenceFile), "utf8").trim()
      : `(no licence file in the package; its package.json says ${pkg.license ?? "nothing"})`;
    names.push(pkg.name);
    // Fenced: some licence files are markdown with headings of their own.
    sections.push(
      `## ${pkg.name} ${pkg.version} (${pkg.license ?? "licence not declared"})\n\n\`\`\`\`text\n${text}\n\`\`\`\`\n`,
    );
  }
  writeFileSync(
    file,
    `# ${title}\n\nThe code of these packages is included in the bundle; their licence notices follow.\n\n${sections.join("\n")}`,
  );
  return names;
}
