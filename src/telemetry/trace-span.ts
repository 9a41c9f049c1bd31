/** An attribute's value: OpenTelemetry's primitive types. */
export type TraceAttributeValue = string | number | boolean;

/** One span of an exported trace, before any wire encoding; times are ISO 8601 strings (millisecond precision). */
export interface TraceSpan {
  /** 32 lowercase hex digits. */
  readonly traceId: string;
  /** 16 lowercase hex digits. */
  readonly spanId: string;
  /** The parent's span id, or null for the run's root span. */
  readonly parentSpanId: string | null;
  readonly name: string;
  /** `client` for an agent call (a request to something outside), `internal` otherwise. */
  readonly kind: 'internal' | 'client';
  readonly startTime: string;
  readonly endTime: string;
  readonly attributes: Readonly<Record<string, TraceAttributeValue>>;
  readonly events: readonly TraceSpanEvent[];
  readonly status: { readonly code: 'unset' | 'ok' | 'error'; readonly message?: string };
}

/** A span event: its name, time and attributes. */
export interface TraceSpanEvent {
  readonly name: string;
  readonly time: string;
  readonly attributes: Readonly<Record<string, TraceAttributeValue>>;
}
