/** A finished span of a run, with explicit times from the store's records (ms since the epoch). */
export interface RunSpan {
  traceId: string;
  spanId: string;
  /** Null for the run's root span. */
  parentSpanId: string | null;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Record<string, string | number | boolean>;
  /** Set when it failed: the span's status is an error with this message. */
  error: string | null;
}

/** Where finished spans go (the OTLP exporter, loaded only when traces are asked for; a list in tests). */
export interface SpanSink {
  export(span: RunSpan): void;
  /** Sends what is pending, giving up after `ms` (a collector that cannot be reached never holds the process). */
  flush(ms: number): Promise<void>;
}
