import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type IdGenerator,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { RunSpan, SpanSink } from './span-sink.js';

/**
 * Spans through the official OpenTelemetry SDK and its OTLP/HTTP exporter, which read the standard
 * variables themselves (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS, _TIMEOUT; OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES). This module is loaded only when an endpoint is set (open-tracing.ts).
 * `warn` is told, once, when spans could not be sent.
 */
export function otlpSink(warn: (why: string) => void): SpanSink {
  let warned = false;
  const once = (why: string) => {
    if (!warned) warn(why);
    warned = true;
  };
  const ids = new PresetIds();
  const provider = new BasicTracerProvider({
    resource: defaultResource()
      .merge(resourceFromAttributes({ 'service.name': 'shop' }))
      .merge(detectResources({ detectors: [envDetector] })),
    idGenerator: ids,
    spanProcessors: [new BatchSpanProcessor(new WarningExporter(new OTLPTraceExporter(), once))],
  });
  const tracer = provider.getTracer('shop');
  return {
    export(s: RunSpan) {
      // The SDK takes a parent's trace id and asks the generator for the rest: the store's ids, given just before.
      ids.next = { traceId: s.traceId, spanId: s.spanId };
      const parent =
        s.parentSpanId === null
          ? ROOT_CONTEXT
          : trace.setSpanContext(ROOT_CONTEXT, {
              traceId: s.traceId,
              spanId: s.parentSpanId,
              traceFlags: TraceFlags.SAMPLED,
              isRemote: true,
            });
      const span = tracer.startSpan(
        s.name,
        { kind: SpanKind.INTERNAL, startTime: s.startMs, attributes: s.attributes },
        parent,
      );
      if (s.error !== null) span.setStatus({ code: SpanStatusCode.ERROR, message: s.error });
      span.end(s.endMs);
      ids.next = null;
    },
    async flush(ms: number) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), ms)));
      const done = await Promise.race([provider.forceFlush().then(() => 'sent' as const), late]).catch((e: unknown) =>
        e instanceof Error ? e.message : String(e),
      );
      clearTimeout(timer);
      if (done === 'late') once(`the collector did not take them within ${ms / 1000} s`);
      else if (done !== 'sent') once(done);
    },
  };
}

/** Hands the SDK the ids the store derived for the span being made (random ones otherwise). */
class PresetIds implements IdGenerator {
  next: { traceId: string; spanId: string } | null = null;

  generateTraceId(): string {
    return this.next?.traceId ?? randomHex(32);
  }

  generateSpanId(): string {
    return this.next?.spanId ?? randomHex(16);
  }
}

const randomHex = (chars: number) =>
  [...crypto.getRandomValues(new Uint8Array(chars / 2))].map((b) => b.toString(16).padStart(2, '0')).join('');

/** The exporter, telling why when a batch was refused or could not be sent. */
class WarningExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly warn: (why: string) => void,
  ) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.inner.export(spans, (result) => {
      // ExportResultCode.SUCCESS is 0.
      if (result.code !== 0) this.warn(result.error?.message ?? 'the export failed');
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
