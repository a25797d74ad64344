/**
 * A span per JSON-RPC call to an SVM node, named by its method (`sendTransaction`), around kit's own
 * HTTP transport. Written here because the libraries cannot name it: instrumentation-undici sees
 * only `POST /` (its span is this one's child), and the method is in the request body, which no
 * span may carry. Attributes: the method, the node's host and port, the JSON-RPC error code; never
 * the params (signed transactions), the URL's path or query (providers put API keys there).
 */
import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import type { RpcTransport } from '@solana/kit';

export function tracedRpcTransport(transport: RpcTransport, tracer: Tracer, rpcUrl: string): RpcTransport {
  const url = new URL(rpcUrl);
  const server = { 'server.address': url.hostname, 'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
  return (<TResponse>(config: Parameters<RpcTransport>[0]) => {
    const method = methodOf(config.payload);
    return tracer.startActiveSpan(method, { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'jsonrpc', 'rpc.method': method, ...server } }, async (span) => {
      try {
        const response = await transport<TResponse>(config);
        const code = (response as { error?: { code?: unknown } } | null)?.error?.code;
        if (typeof code === 'number') {
          // The node answered with an error (kit throws it typed, above the transport).
          span.setAttribute('rpc.jsonrpc.error_code', code);
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        return response;
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.name });
        throw error;
      } finally {
        span.end();
      }
    });
  }) as RpcTransport;
}

function methodOf(payload: unknown): string {
  const method = (payload as { method?: unknown } | null)?.method;
  return typeof method === 'string' ? method : 'jsonrpc';
}
