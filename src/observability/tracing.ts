/**
 * Traces (OpenTelemetry), off unless configured: OTEL_EXPORTER_OTLP_ENDPOINT (or a test's exporter)
 * starts the SDK; otherwise nothing here is even loaded, no instrumentation is installed and no
 * Temporal interceptor is added, so tracing costs nothing when off (docs/traces.md).
 *
 * One trace follows a write: the HTTP server span (instrumentation-http, named by the Koa route),
 * the workflow start (Temporal client interceptor), the workflow run and its steps (workflow
 * interceptors in the bundle, spans exported through a sink), each activity, local ones included
 * (activity interceptors), PostgreSQL queries (instrumentation-pg), outbound fetches
 * (instrumentation-undici) and one span per JSON-RPC call to an SVM node, named by its method
 * (src/network/traced-rpc-transport.ts).
 *
 * Versions: the 1.x SDK line (sdk-trace-* 1.30, instrumentations on 0.57), the one
 * @temporalio/interceptors-opentelemetry 1.24 is built on: workflow spans cross from the sandbox in
 * the 1.x span shape (`parentSpanId`), which a 2.x exporter would drop.
 */
import type { Tracer } from '@opentelemetry/api';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { InstrumentationBase } from '@opentelemetry/instrumentation';
import type { ClientInterceptors } from '@temporalio/client';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';

export interface Tracing {
  /** For spans of our own (the JSON-RPC calls). */
  tracer: Tracer;
  /** A Temporal Client's interceptors: a span per workflow start, its context carried in the headers. */
  clientInterceptors: ClientInterceptors;
  /** A Worker's: the workflow interceptors module in the bundle, the activity interceptors, and the sink exporting workflow spans. */
  worker: { interceptors: WorkerInterceptors; sinks: InjectedSinks<OpenTelemetrySinks> };
  /** Flushes the spans not yet exported, then stops the SDK and the instrumentations. Idempotent. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  serviceName: string;
  exporter: SpanExporter;
  /** Batch spans before exporting (production); false exports each span as it ends (tests). */
  batch?: boolean;
}

/** The tracing the configuration asks for, or undefined (nothing started) when no OTLP endpoint is set. */
/** Where traces go, as the configuration says (src/config); undefined: nowhere. */
export type TracingConfig = { serviceName: string; tracesUrl: string } | undefined;

export async function tracingFromConfig(config: TracingConfig): Promise<Tracing | undefined> {
  if (!config) return undefined;
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  // Headers, timeout and compression come from the standard OTEL_EXPORTER_OTLP_* variables, read by the exporter.
  return startTracing({ serviceName: config.serviceName, exporter: new OTLPTraceExporter({ url: config.tracesUrl }), batch: true });
}

/**
 * Starts the SDK once per process: registers the global tracer provider (with the AsyncLocalStorage
 * context manager and W3C trace context propagation) and the instrumentations. Fails when a tracer
 * provider is already registered, rather than exporting nowhere.
 */
export async function startTracing(options: TracingOptions): Promise<Tracing> {
  const [api, sdk, base, resources, instrumentation, http, undici, pg, temporal] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-undici'),
    import('@opentelemetry/instrumentation-pg'),
    import('@temporalio/interceptors-opentelemetry'),
  ]);
  // OTEL_RESOURCE_ATTRIBUTES adds to the resource; OTEL_SERVICE_NAME (config) names the service.
  const resource = resources.Resource.default()
    .merge(resources.envDetectorSync.detect())
    .merge(new resources.Resource({ 'service.name': options.serviceName }));
  const processor: SpanProcessor = options.batch === false ? new base.SimpleSpanProcessor(options.exporter) : new base.BatchSpanProcessor(options.exporter);
  const provider = new sdk.NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  const registered = api.trace.getTracerProvider();
  if (!(registered instanceof api.ProxyTracerProvider) || registered.getDelegate() !== provider)
    throw new Error('tracing: another tracer provider is already registered in this process');

  const instrumentations: InstrumentationBase[] = [
    // Incoming requests only: outbound HTTP here goes through fetch (undici), traced below.
    new http.HttpInstrumentation({ disableOutgoingRequestInstrumentation: true }),
    new undici.UndiciInstrumentation({ requireParentforSpans: true, startSpanHook: outboundUrlAttributes }),
    // Only inside a traced operation (no root spans for background queries). MikroORM inlines values
    // into its SQL (sealed keys, webhook credentials, signed messages): the statement is kept without them.
    new pg.PgInstrumentation({
      requireParentSpan: true,
      requestHook: (span, { query }) => query.text && span.setAttribute('db.statement', withoutLiterals(query.text)),
    }),
  ];
  const unregister = instrumentation.registerInstrumentations({ tracerProvider: provider, instrumentations });
  await patchLoadedModules(instrumentations);

  const tracer = provider.getTracer('ledger-asset-service');
  let stopped: Promise<void> | undefined;
  return {
    tracer,
    clientInterceptors: { workflow: [new temporal.OpenTelemetryWorkflowClientInterceptor()] },
    worker: {
      interceptors: {
        workflowModules: [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')],
        activity: [
          (ctx) => ({
            inbound: new temporal.OpenTelemetryActivityInboundInterceptor(ctx),
            outbound: new temporal.OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
      // Workflow spans are made in the sandbox and leave it through this sink, into the same processor.
      sinks: { exporter: temporal.makeWorkflowExporter(processor, resource) },
    },
    shutdown() {
      stopped ??= (async () => {
        unregister();
        await provider.shutdown();
        api.trace.disable();
        api.context.disable();
        api.propagation.disable();
      })();
      return stopped;
    },
  };
}

/**
 * An outbound request's URL as its span may show it: the origin, the path and query REDACTED when
 * present. RPC providers put API keys in either (`/<token>/`, `?api-key=`), webhook receivers too.
 */
export function outboundUrlAttributes(request: { origin: string; path: string }): Record<string, string> {
  const [path, query] = request.path.split('?', 2);
  const hidden = (part: string | undefined) => (part && part !== '/' ? 'REDACTED' : '');
  return {
    'url.full': `${request.origin}${hidden(path) ? '/REDACTED' : '/'}${hidden(query) ? '?REDACTED' : ''}`,
    'url.path': hidden(path) || '/',
    'url.query': hidden(query) ? '?REDACTED' : '',
  };
}

/**
 * SQL with every string literal (standard, E'' and dollar-quoted) replaced by `?`, the statement's
 * shape without its values: what a span may carry.
 */
export function withoutLiterals(sql: string): string {
  return sql.replace(/(?<!\w)[eE]'(?:[^'\\]|''|\\[\s\S])*'|'(?:[^']|'')*'|\$([A-Za-z_][A-Za-z_0-9]*)?\$[\s\S]*?\$\1\$/g, '?');
}

/**
 * The instrumentations' require hooks patch a module when it is required after them; they never see
 * a module already loaded, nor one loaded by jest's module registry or imported by ESM code
 * (MikroORM imports pg). Their patches wrap prototypes and module functions in place, so this applies
 * them to the modules this process actually uses, whenever those were loaded (a later require through
 * the hook re-applies the same patch, which unwraps first: never twice).
 */
async function patchLoadedModules(instrumentations: InstrumentationBase[]): Promise<void> {
  const pg = (await import('pg')).default;
  const loaded: Record<string, unknown> = {
    http: (await import('node:http')).default,
    pg,
    // pg's Pool extends the pg-pool class that pg itself loaded: patch that one.
    'pg-pool': Object.getPrototypeOf(pg.Pool),
  };
  for (const instrumentation of instrumentations) {
    for (const definition of instrumentation.getModuleDefinitions()) {
      const exports = loaded[definition.name];
      if (!exports || !definition.patch) continue;
      definition.moduleExports = exports;
      definition.patch(exports);
    }
  }
}
