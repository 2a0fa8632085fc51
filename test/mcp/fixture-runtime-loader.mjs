/**
 * Loads the fixture servers' runtime (the MCP SDK's server and zod, bundled as one CommonJS file by
 * test/mcp/helpers.ts) through a V8 code cache kept beside it: compiling the 1.4 MB file was half of a
 * fixture server's start (import 62 -> 32 ms of CPU with the cache; a run starts about thirty). The
 * first server that finds no cache, or one V8 rejects (another Node version or flags), writes it
 * (aside, then renamed, so a parallel server never reads half a file). Test-only: the product never
 * runs code from a cache.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { Script } from "node:vm";

/** The runtime's exports: `{ McpServer, StdioServerTransport, z }`. */
export function loadFixtureRuntime(file) {
  const cacheFile = `${file}.v8cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {}
  const source = readFileSync(file, "utf8");
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  if (cachedData === undefined || script.cachedDataRejected) {
    try {
      const aside = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(aside, script.createCachedData());
      renameSync(aside, cacheFile);
    } catch {}
  }
  return module.exports;
}
