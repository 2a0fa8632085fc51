/**
 * The one provider factory: a provider is a **wire protocol** (a request mapper that builds the call,
 * a stream decoder that reads the answer, and the credential it needs) put on the parts every provider
 * shares: the keep-alive HTTP transport with its stall limits and proxy, typed errors from the status
 * and body (http.ts), the streaming driver (stream-call.ts), `getApiKey` asked before each call and
 * once more when the server refuses the credential. Retries, usage totals and cost are the caller's
 * (retry.ts, the loop), the same for every provider.
 *
 * Adding a wire is writing its `WireProtocol` and a mock of its stream (src/testing/mock-wire*.ts),
 * then a descriptor in test/llm/conformance/ so the shared scenario list runs against it.
 */
import { createHttpTransport } from "./http.js";
import { type BodyOpener, streamCall, type WireCall, type WireDecoder } from "./stream-call.js";
import type { ModelRequest, Provider, ProviderOptions } from "./types.js";

/** What a wire protocol knows of the provider instance it serves. */
export interface WireContext {
  /** The provider's name (`anthropic`, `litellm`, …), used in messages and `provider/model` ids. */
  name: string;
  /** Where keys, base URLs and switches are read. */
  env: Record<string, string | undefined>;
  options: ProviderOptions;
}

/** One API's request mapper, stream decoder and credential, for one provider instance. */
export interface WireProtocol {
  /**
   * URL, headers and body of one call. `key` is `getApiKey`'s answer, undefined without a callback
   * or when it answered nothing (the protocol then falls back to `options.apiKey` and its variables).
   * Throws a ProviderError (never sent) when the call cannot be made, e.g. no key for a public API.
   */
  prepare(request: ModelRequest, key: string | undefined): WireCall | Promise<WireCall>;
  /** A fresh decoder for one call's answer; `model` is the `provider/model` id it reports. */
  decoder(request: ModelRequest, model: string): WireDecoder;
  /** Reads a 2xx body as events; default SSE. */
  openBody?: BodyOpener;
  /**
   * For a wire that fetches its own credentials (cloud credential chains, OAuth tokens): drops the
   * cached credential the server refused and fetches it again; true when the new one differs (the
   * call is then made once more), false when there is nothing newer. Used when `getApiKey` is not given.
   */
  renewCredential?(): Promise<boolean>;
}

/**
 * Creates a provider from a wire protocol. `kind` is the default name (`options.name` wins);
 * `protocol` is called once with the instance's context.
 */
export function createWireProvider(
  kind: string,
  options: ProviderOptions,
  protocol: (context: WireContext) => WireProtocol,
): Provider {
  const name = options.name ?? kind;
  const env = options.env ?? process.env;
  const transport = createHttpTransport(name, { timeouts: options.timeouts, proxy: options.proxy, env });
  const wire = protocol({ name, env, options });
  const getApiKey = options.getApiKey;
  const renew = wire.renewCredential?.bind(wire);
  const refresher = (request: ModelRequest, sent: () => string | undefined) =>
    getApiKey
      ? async (): Promise<WireCall | undefined> => {
          const key = (await getApiKey(name)) ?? undefined;
          // The same credential again would only be refused again.
          if (key === undefined || key === sent()) return undefined;
          return wire.prepare(request, key);
        }
      : renew
        ? async (): Promise<WireCall | undefined> =>
            (await renew()) ? wire.prepare(request, undefined) : undefined
        : undefined;
  return {
    name,
    close: () => transport.close(),
    stream: (request) => {
      let sentKey: string | undefined;
      return streamCall(name, transport, request, {
        // Synchronous unless a getApiKey callback is given: one promise turn less per call.
        prepare: getApiKey
          ? async () => {
              sentKey = (await getApiKey(name)) ?? undefined;
              return wire.prepare(request, sentKey);
            }
          : () => wire.prepare(request, undefined),
        decoder: wire.decoder(request, `${name}/${request.model}`),
        openBody: wire.openBody,
        refresh: refresher(request, () => sentKey),
      });
    },
  };
}

/** A base URL without its trailing slashes. */
export function trimSlash(url: string): string {
  return url.endsWith("/") ? url.replace(/\/+$/, "") : url;
}
