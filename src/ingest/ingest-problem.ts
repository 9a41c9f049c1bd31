/** A problem that stopped part of an ingest: I/O, decoding, limits, schema or an internal exception. */
export interface IngestProblem {
  readonly code:
    | 'document_unreadable'
    | 'invalid_utf8'
    | 'too_large'
    | 'too_complex'
    | 'secret_in_path'
    | 'io_error'
    | 'schema_error'
    | 'internal_error'
    /** A streamed document that ended early (its signal aborted, or its source failed): only what was decided counts. */
    | 'cut_off';
  readonly message: string;
}

/** Records a problem (as an `ingest.error` event and in the result). */
export type ReportProblem = (code: IngestProblem['code'], message: string) => void;
