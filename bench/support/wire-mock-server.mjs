/**
 * The testing kit's mock provider (built dist/) answering every call with one canned text answer in
 * the wire the request's path names, for bench/native-providers.mjs. Run as a child process, so only
 * the client's work is timed: prints `{"port": N}` once listening; exits when stdin closes.
 */
const { reply, startMockProvider } = await import("../../dist/testing/mock-provider.js");

const TEXT = "The quick brown fox jumps over the lazy dog while the benchmark counts every microsecond spent";
const mock = await startMockProvider({
  whenEmpty: reply.text(TEXT, { chunkSize: 7, usage: { input: 120, output: 15 } }),
});
// The mock keeps every request it saw; a benchmark sends thousands.
setInterval(() => {
  mock.requests.length = 0;
}, 200).unref();
process.stdout.write(`${JSON.stringify({ port: Number(new URL(mock.anthropicBaseURL).port) })}\n`);
process.stdin.resume();
process.stdin.on("end", () => mock.close().then(() => process.exit(0)));
