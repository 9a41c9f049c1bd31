import { mayHoldCandidate, parseFences } from '../../fence/index.js';
import type { FenceParser } from '../../project/index.js';
import type { FenceScan } from '../../fence/index.js';
import { DeadlineWorker, workerEntryBeside } from '../deadline-worker/index.js';
import type { FenceParseRequest } from './fence-parse-message.js';

/** Options for {@link parseFencesIsolated}. */
export interface IsolatedParseOptions {
  /** Return every fenced code block, not only candidates. */
  readonly all?: boolean;
  /** Terminate the parse when it runs longer than this many milliseconds: the scan is then `timedOut`. */
  readonly timeLimitMs?: number;
  /** The block parser (`ingest.parser`); by default (or undefined) the scanner. */
  readonly parser?: FenceParser | undefined;
  /**
   * Keep at most this many candidates; the rest are counted in the scan's `omitted`, so what the worker sends
   * back stays bounded however many candidates the document holds. Default: keep all.
   */
  readonly maxCandidates?: number | undefined;
}

/** Internal options of an {@link IsolatedFenceParser}, for tests: the worker's entry, its flags, where warnings go. */
export interface IsolatedFenceParserOptions {
  /** The worker's entry module; by default fence-worker.js beside this module (its .ts, through tsx, under the sources). */
  readonly workerEntry?: URL;
  /** Where the one fail-open warning goes; by default stderr. */
  readonly warn?: (message: string) => void;
  /** How long a starting worker may take to load before the parser falls back to parsing in-process. */
  readonly startTimeoutMs?: number;
  /** The worker's heap limit in MiB; by default the process's own (v8 heap_size_limit). */
  readonly maxHeapMb?: number;
}

const TIMED_OUT: FenceScan = { blocks: [], parsed: true, timedOut: true };

/**
 * Parses documents in one reused worker thread, one at a time in arrival order, and terminates the worker when
 * a document overruns its deadline (the next document starts a fresh worker); falls back to the in-process
 * parse, once said, when no worker can be started.
 */
export class IsolatedFenceParser {
  private readonly worker: DeadlineWorker<FenceParseRequest, FenceScan>;

  constructor(options: IsolatedFenceParserOptions = {}) {
    this.worker = new DeadlineWorker({
      entry: options.workerEntry ?? workerEntryBeside(import.meta.url, 'fence-worker'),
      name: 'fence parse worker',
      task: 'parsing a document',
      fallbackNote: 'parsing documents in-process, where max_parse_ms is checked only between parse steps',
      warn: options.warn,
      startTimeoutMs: options.startTimeoutMs,
      maxHeapMb: options.maxHeapMb,
    });
  }

  /** Workers started so far (a terminated one is replaced by the next document's). */
  get workersStarted(): number {
    return this.worker.workersStarted;
  }

  /** Why documents are parsed in-process, once no worker could be started; undefined while workers serve. */
  get fallback(): string | undefined {
    return this.worker.fallback;
  }

  /** The document's scan, as `parseFences` gives it, or `timedOut` with no blocks when it overran `timeLimitMs`. */
  async parse(text: string, options: IsolatedParseOptions = {}): Promise<FenceScan> {
    const all = options.all === true;
    // A proof of "no candidate" is a linear scan without a block parser: it cannot stall, so it stays in-process.
    if (!mayHoldCandidate(text, all)) return { blocks: [], parsed: false };
    // No time at all: what the in-process parse answers after its first step, without starting anything.
    if (options.timeLimitMs !== undefined && options.timeLimitMs <= 0) return TIMED_OUT;
    const request = { text, all, parser: options.parser, maxCandidates: options.maxCandidates };
    const outcome = await this.worker.run(request, options.timeLimitMs);
    switch (outcome.kind) {
      case 'answered':
        return outcome.answer;
      case 'timed-out':
        return TIMED_OUT;
      case 'unavailable':
        // No worker could be started (said once): the in-process parse checks the deadline between steps.
        return parseFences(text, {
          ...(all ? { all: true } : {}),
          ...(options.parser === undefined ? {} : { parser: options.parser }),
          ...(options.timeLimitMs === undefined ? {} : { timeLimitMs: options.timeLimitMs }),
          ...(options.maxCandidates === undefined ? {} : { maxCandidates: options.maxCandidates }),
        });
    }
  }

  /** Terminates the worker; documents still queued are parsed by a fresh worker when another is asked for. */
  close(): Promise<void> {
    return this.worker.close();
  }
}

let shared: IsolatedFenceParser | undefined;

/**
 * Parses a document as `parseFences` does, in a worker thread that is terminated when the parse overruns
 * `timeLimitMs` (the scan is then `timedOut`), so the caller's event loop never stalls on hostile markdown.
 */
export function parseFencesIsolated(text: string, options: IsolatedParseOptions = {}): Promise<FenceScan> {
  shared ??= new IsolatedFenceParser();
  return shared.parse(text, options);
}
