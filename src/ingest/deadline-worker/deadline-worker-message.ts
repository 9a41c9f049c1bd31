/** What the parent sends a deadline worker: one request and the id its answer carries (structured clone). */
export interface DeadlineWorkerRequest<Request> {
  readonly id: number;
  readonly request: Request;
}

/**
 * What a deadline worker answers: that it has loaded, or one request's answer (plain data, as structured clone
 * keeps it), or the message of an unexpected throw.
 */
export type DeadlineWorkerAnswer<Answer> =
  | { readonly ready: true }
  | { readonly id: number; readonly answer: Answer }
  | { readonly id: number; readonly error: string };
