/**
 * Small helpers shared by the loop-server benchmarks: the median, the last JSON line of a child
 * process, and the instant mock server of the loop benchmark started as a child process (so only the
 * client's work is timed).
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));

/** The median of a list of numbers. */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Resolves with the parsed last line a child printed, once it exits with 0. */
export const lastLine = (child) =>
  new Promise((resolve, reject) => {
    let line;
    createInterface({ input: child.stdout }).on("line", (l) => {
      line = l;
    });
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(line)) : reject(new Error(`child exited ${code}`)),
    );
  });

/** Starts bench/support/loop-server.mjs as a child; resolves with its base URL and a stop function. */
export async function spawnLoopServer() {
  const server = spawn(process.execPath, [`${here}loop-server.mjs`], { stdio: ["pipe", "pipe", "inherit"] });
  const { port } = JSON.parse(
    await new Promise((r) => createInterface({ input: server.stdout }).once("line", r)),
  );
  return { port, baseURL: `http://127.0.0.1:${port}`, stop: () => server.stdin.end() };
}
