import type { Store } from '../store/store.js';
import type { Run } from '../types.js';
import type { SpanSink } from './span-sink.js';

/** How long a leaving process waits for its spans to reach the collector. */
const FLUSH_MS = 2000;

/** A process's tracing, when asked for: the store that exports spans, and what agents are given. */
export interface Tracing {
  wrap(store: Store): Store;
  /** TRACEPARENT for an agent's attempt: its span, so the agent's own telemetry joins the run's trace. */
  traceparent(run: Run, key: string, attempt: number): string;
  /** Sends what is pending before the process leaves (bounded: never holds it longer than a moment). */
  flush(): Promise<void>;
}

/** Whether the standard OpenTelemetry variables ask for traces (an OTLP endpoint, for traces or for all signals). */
export function tracesAsked(env: NodeJS.ProcessEnv): boolean {
  return (
    Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT) &&
    env.OTEL_SDK_DISABLED !== 'true'
  );
}

/**
 * Tracing when the environment asks for it, else null — and then the OpenTelemetry SDK is never
 * loaded: its modules, and the store's wrapper, are imported only here, only then. `warn` gets
 * one line when spans could not be sent (a collector that cannot be reached never fails nor
 * stalls a run), or when the endpoint is not a URL they could be sent to.
 */
export async function openTracing(env: NodeJS.ProcessEnv, warn: (line: string) => void): Promise<Tracing | null> {
  if (!tracesAsked(env)) return null;
  const bad = badEndpoint(env);
  if (bad !== null) {
    warn(bad);
    return null;
  }
  const [{ otlpSink }, { tracedStore }, { attemptTraceparent }] = await Promise.all([
    import('./otlp-sink.js'),
    import('./traced-store.js'),
    import('./trace-ids.js'),
  ]);
  const where = shownEndpoint(env);
  const sink: SpanSink = otlpSink((why) => warn(`traces were not sent to ${where}: ${why}`));
  return {
    wrap: (store) => tracedStore(store, sink),
    traceparent: attemptTraceparent,
    flush: () => sink.flush(FLUSH_MS),
  };
}

/**
 * When the endpoint in force (the traces one, else the base one) is not an http(s) URL: what is
 * wrong and what to give instead. Nothing could be sent there, so the SDK is not loaded for it.
 */
function badEndpoint(env: NodeJS.ProcessEnv): string | null {
  const { name, value } = endpointSetting(env);
  let protocol: string | null = null;
  try {
    protocol = new URL(value).protocol;
  } catch {
    /* not a URL */
  }
  if (protocol === 'http:' || protocol === 'https:') return null;
  // Not echoed: it may hold credentials, and it does not parse to show it without them.
  return `${name} is not an http(s) URL: traces are not sent (give an OTLP/HTTP collector's, such as http://localhost:4318)`;
}

/**
 * Where spans go as a person may see it (without credentials or a query): the traces endpoint as
 * given, or the base endpoint with /v1/traces after it, as the specification joins them.
 */
function shownEndpoint(env: NodeJS.ProcessEnv): string {
  const { name, value } = endpointSetting(env);
  const raw = name === TRACES_ENDPOINT ? value : `${value.replace(/\/+$/, '')}/v1/traces`;
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'the OTLP endpoint';
  }
}

const TRACES_ENDPOINT = 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT';

/** The endpoint setting in force: the traces one when set, else the base one. */
function endpointSetting(env: NodeJS.ProcessEnv): { name: string; value: string } {
  const name = env[TRACES_ENDPOINT] ? TRACES_ENDPOINT : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  return { name, value: env[name] ?? '' };
}
