// The entry of the fence parse worker (started by parse-fences-isolated.ts): it parses each document it is
// sent and answers with the scan (plain data that structured clone keeps as it is); its parent terminates it
// when a document overruns its deadline.
import { parseFences } from '../../fence/index.js';
import type { FenceScan } from '../../fence/index.js';
import { serveDeadlineWorker } from '../deadline-worker/index.js';
import type { FenceParseRequest } from './fence-parse-message.js';

serveDeadlineWorker((request: FenceParseRequest): FenceScan =>
  parseFences(request.text, {
    ...(request.all ? { all: true } : {}),
    ...(request.parser === undefined ? {} : { parser: request.parser }),
    ...(request.maxCandidates === undefined ? {} : { maxCandidates: request.maxCandidates }),
  }),
);
