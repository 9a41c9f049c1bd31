/** Every event level, least serious first: INFO for progress, WARNING for format mismatches, ERROR for failures. */
export const EVENT_LEVELS = ['INFO', 'WARNING', 'ERROR'] as const;

/** How serious an event is. */
export type EventLevel = (typeof EVENT_LEVELS)[number];

/** Whether a value is one of the three event levels. */
export function isEventLevel(value: unknown): value is EventLevel {
  return value === 'INFO' || value === 'WARNING' || value === 'ERROR';
}
