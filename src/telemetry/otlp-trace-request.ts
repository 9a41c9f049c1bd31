import { TRACER_NAME } from './span-tree.js';
import type { TraceAttributeValue, TraceSpan } from './trace-span.js';

/** `service.name` of the exported resource. */
export const OTLP_SERVICE_NAME = 'artifact-ingest';

/** An OTLP/JSON `AnyValue` of the primitive kinds we send (int64 as a decimal string, as the JSON mapping has it). */
export type OtlpAnyValue =
  | { readonly stringValue: string }
  | { readonly intValue: string }
  | { readonly doubleValue: number }
  | { readonly boolValue: boolean };

/** An OTLP/JSON `KeyValue`. */
export interface OtlpKeyValue {
  readonly key: string;
  readonly value: OtlpAnyValue;
}

/** An OTLP/JSON `Span` (opentelemetry/proto/trace/v1/trace.proto, JSON mapping). */
export interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** SPAN_KIND_INTERNAL = 1, SPAN_KIND_CLIENT = 3. */
  readonly kind: number;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes: readonly OtlpKeyValue[];
  readonly events: readonly {
    readonly timeUnixNano: string;
    readonly name: string;
    readonly attributes: readonly OtlpKeyValue[];
  }[];
  /** STATUS_CODE_UNSET = 0, OK = 1, ERROR = 2. */
  readonly status: { readonly code: number; readonly message?: string };
}

/** An OTLP/JSON `ExportTraceServiceRequest`: the body POSTed to `/v1/traces`. */
export interface OtlpTraceRequest {
  readonly resourceSpans: readonly {
    readonly resource: { readonly attributes: readonly OtlpKeyValue[] };
    readonly scopeSpans: readonly {
      readonly scope: { readonly name: string; readonly version: string };
      readonly spans: readonly OtlpSpan[];
    }[];
  }[];
}

const SPAN_KIND = { internal: 1, client: 3 } as const;
const STATUS_CODE = { unset: 0, ok: 1, error: 2 } as const;

/**
 * The spans as an OTLP/JSON ExportTraceServiceRequest, per the protocol's JSON encoding: field names in
 * lowerCamelCase, trace and span ids as hex strings (not base64), enums as integers, 64-bit integers (times in
 * nanoseconds, int attributes) as decimal strings. One resource (`service.name` artifact-ingest, its version)
 * and one instrumentation scope ({@link TRACER_NAME}).
 */
export function otlpTraceRequestOf(spans: readonly TraceSpan[], version: string): OtlpTraceRequest {
  return {
    resourceSpans: [
      {
        resource: {
          attributes: keyValuesOf({ 'service.name': OTLP_SERVICE_NAME, 'service.version': version }),
        },
        scopeSpans: [{ scope: { name: TRACER_NAME, version }, spans: spans.map(otlpSpanOf) }],
      },
    ],
  };
}

function otlpSpanOf(span: TraceSpan): OtlpSpan {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId === null ? {} : { parentSpanId: span.parentSpanId }),
    name: span.name,
    kind: SPAN_KIND[span.kind],
    startTimeUnixNano: unixNanoOf(span.startTime),
    endTimeUnixNano: unixNanoOf(span.endTime),
    attributes: keyValuesOf(span.attributes),
    events: span.events.map((event) => ({
      timeUnixNano: unixNanoOf(event.time),
      name: event.name,
      attributes: keyValuesOf(event.attributes),
    })),
    status: {
      code: STATUS_CODE[span.status.code],
      ...(span.status.message === undefined ? {} : { message: span.status.message }),
    },
  };
}

function keyValuesOf(attributes: Readonly<Record<string, TraceAttributeValue>>): OtlpKeyValue[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: anyValueOf(value) }));
}

function anyValueOf(value: TraceAttributeValue): OtlpAnyValue {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

/** An ISO 8601 time as nanoseconds since the Unix epoch, a decimal string (0 for a time that does not parse). */
function unixNanoOf(time: string): string {
  const ms = Date.parse(time);
  return Number.isFinite(ms) ? (BigInt(ms) * 1_000_000n).toString() : '0';
}
