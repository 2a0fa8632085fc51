/**
 * Model calls through an HTTP proxy, as corporate networks need: a CONNECT proxy written here on
 * 127.0.0.1 tunnels to the mock provider. The environment's HTTPS_PROXY / HTTP_PROXY / NO_PROXY and
 * the `proxy` option decide; the proxy resolves the made-up host `provider.test` itself, so a call
 * that reaches the mock without the proxy fails.
 */
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accumulate } from "../../src/llm/accumulate.js";
import { createAnthropicProvider } from "../../src/llm/anthropic.js";
import { isProviderError } from "../../src/llm/errors.js";
import { createOpenAIProvider } from "../../src/llm/openai.js";
import { proxyFor } from "../../src/llm/proxy.js";
import type { ModelRequest } from "../../src/llm/types.js";
import { query } from "../../src/sdk/query.js";
import type { SDKResultMessage } from "../../src/sdk/sdk-messages.js";
import { type MockProvider, reply, startMockProvider } from "../support/mock-provider.js";

interface ConnectProxy {
  url: string;
  /** Each CONNECT target as asked, with its Proxy-Authorization header. */
  connects: Array<{ target: string; auth?: string }>;
  close(): void;
}

/** A CONNECT-only proxy; `provider.test` resolves to 127.0.0.1 here only. With `auth`, others get 407. */
async function startConnectProxy(auth?: string): Promise<ConnectProxy> {
  const connects: ConnectProxy["connects"] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_req, res) => {
    res.writeHead(405);
    res.end("CONNECT only");
  });
  server.on("connect", (req, client: net.Socket) => {
    sockets.add(client);
    const target = req.url ?? "";
    connects.push({ target, auth: req.headers["proxy-authorization"] });
    if (auth && req.headers["proxy-authorization"] !== auth) {
      client.end("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n");
      return;
    }
    const [host, port] = target.split(":");
    const upstream = net.connect(Number(port), host === "provider.test" ? "127.0.0.1" : host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    connects,
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

let mock: MockProvider;
let proxy: ConnectProxy;
let port: string;
beforeAll(async () => {
  mock = await startMockProvider();
  proxy = await startConnectProxy();
  port = new URL(mock.anthropicBaseURL).port;
});
afterAll(async () => {
  proxy.close();
  await mock.close();
});
beforeEach(() => {
  proxy.connects.length = 0;
});

const ask: ModelRequest = { model: "m-1", messages: [{ role: "user", content: "hi" }] };

describe("HTTP proxy", () => {
  it("tunnels calls through HTTP_PROXY with CONNECT and reuses the tunnel", async () => {
    mock.enqueue(reply.text("via proxy"), reply.text("again"));
    const provider = createAnthropicProvider({
      baseURL: `http://provider.test:${port}`,
      apiKey: "k",
      env: { HTTP_PROXY: proxy.url },
    });
    expect((await accumulate(provider.stream(ask))).content).toEqual([{ type: "text", text: "via proxy" }]);
    expect((await accumulate(provider.stream(ask))).content).toEqual([{ type: "text", text: "again" }]);
    expect(proxy.connects.map((c) => c.target)).toEqual([`provider.test:${port}`]);
  });

  it("skips the proxy for NO_PROXY hosts (so the made-up host is not found)", async () => {
    const provider = createOpenAIProvider({
      baseURL: `http://provider.test:${port}/v1`,
      apiKey: "k",
      env: { HTTP_PROXY: proxy.url, NO_PROXY: "example.com,.test" },
    });
    const error = await accumulate(provider.stream(ask)).catch((e: unknown) => e);
    expect(isProviderError(error) && error.kind).toBe("network");
    expect(proxy.connects).toEqual([]);
  });

  it("sends the proxy's credentials, and names the proxy when it refuses", async () => {
    const guarded = await startConnectProxy(`Basic ${Buffer.from("me:s3cret").toString("base64")}`);
    try {
      const withAuth = new URL(guarded.url);
      withAuth.username = "me";
      withAuth.password = "s3cret";
      mock.enqueue(reply.text("authorized"));
      const ok = createAnthropicProvider({
        baseURL: `http://provider.test:${port}`,
        apiKey: "k",
        proxy: withAuth.href,
      });
      expect((await accumulate(ok.stream(ask))).content).toEqual([{ type: "text", text: "authorized" }]);

      const refused = createAnthropicProvider({
        baseURL: `http://provider.test:${port}`,
        apiKey: "k",
        proxy: guarded.url,
      });
      const error = await accumulate(refused.stream(ask)).catch((e: unknown) => e);
      expect(isProviderError(error) && error.kind).toBe("network");
      expect(String((error as Error).message)).toMatch(
        /proxy http:\/\/127\.0\.0\.1:\d+ refused CONNECT provider\.test:\d+: 407/,
      );
    } finally {
      guarded.close();
    }
  });

  it("takes query()'s proxy option, and proxy: false ignores the environment", async () => {
    mock.enqueue(reply.text("through the option"));
    const run = async (extra: object) => {
      let result: SDKResultMessage | undefined;
      for await (const m of query({
        prompt: "hi",
        options: {
          model: "anthropic/claude-sonnet-4-5",
          provider: { type: "anthropic", baseURL: `http://provider.test:${port}`, apiKey: "k" },
          retry: { maxRetries: 0 },
          persistSession: false,
          tools: [],
          ...extra,
        },
      }))
        if (m.type === "result") result = m;
      return result;
    };
    expect((await run({ proxy: proxy.url }))?.result).toBe("through the option");
    expect(proxy.connects).toHaveLength(1);
    const direct = await run({ proxy: false, env: { ...process.env, HTTP_PROXY: proxy.url } });
    expect(direct?.is_error).toBe(true);
    expect(proxy.connects).toHaveLength(1);
  });

  it("leaves loopback hosts direct unless a proxy is given explicitly, and reads https_proxy for https", () => {
    const env = { HTTPS_PROXY: "http://corp:3128", HTTP_PROXY: "http://plain:3128" };
    expect(proxyFor(new URL("http://127.0.0.1:4000"), undefined, env)).toBeUndefined();
    expect(proxyFor(new URL("http://localhost:11434"), undefined, env)).toBeUndefined();
    expect(proxyFor(new URL("https://api.anthropic.com"), undefined, env)?.host).toBe("corp:3128");
    expect(proxyFor(new URL("http://gw.internal:4000"), undefined, env)?.host).toBe("plain:3128");
    expect(proxyFor(new URL("http://127.0.0.1:4000"), "http://corp:3128", {})?.host).toBe("corp:3128");
    expect(
      proxyFor(new URL("https://api.anthropic.com"), undefined, { ...env, NO_PROXY: "*" }),
    ).toBeUndefined();
    expect(
      proxyFor(new URL("https://api.anthropic.com"), undefined, { ...env, no_proxy: "anthropic.com:443" }),
    ).toBeUndefined();
    expect(() => proxyFor(new URL("https://x.y"), "socks5://p:1080", {})).toThrow(/http:\/\/host:port/);
  });
});
