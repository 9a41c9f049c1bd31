import path from 'node:path';
import { openIngestRecords, recordFailureEvents } from '../artifacts/index.js';
import type { IngestRecords } from '../artifacts/index.js';
import { openRunEventLog } from '../events/index.js';
import type { EventFields, EventLog } from '../events/index.js';
import { concludeDocument } from '../ingest/index.js';
import { describeError, parseNodeId, parseRunId, redactSecrets } from '../project/index.js';
import { openProject } from '../store/index.js';
import type { Project } from '../store/index.js';
import { openConfinedRoot } from '../workspace/index.js';
import type { ConfinedRoot } from '../workspace/index.js';
import type { IngestNodeOptions } from './ingest-node.js';
import { failedSummary, ingestedSummary } from './ingest-node-summary.js';
import type { IngestNodeSummary, SummaryIds } from './ingest-node-summary.js';

const DEFAULT_AGENT_ID = 'langgraph';

/**
 * Saves the answer at `ids.docPath` and ingests it through the ingest's one `concludeDocument` (the graph runtime's
 * post-write ingest: document written atomically and recorded, blocks ingested, placed files recorded), fail-open:
 * whatever goes wrong is the summary's `problems`, never a throw.
 */
export async function ingestAnswer(
  options: IngestNodeOptions,
  ids: SummaryIds,
  text: string,
): Promise<IngestNodeSummary> {
  const runId = parseRunId(ids.runId, 'runId');
  const nodeId = parseNodeId(ids.nodeId, 'nodeId');
  const opened: Opened = {};
  let firstProblem: string | undefined;
  try {
    opened.project =
      typeof options.projectDir === 'string'
        ? openProject(path.resolve(options.projectDir))
        : options.projectDir;
    const events = noticingProblems(
      await openRunEventLog(opened.project, runId, { run_id: runId }),
      (fields) => {
        firstProblem ??= `${String(fields['code'])}: ${String(fields['message'])}`;
      },
    );
    opened.events = events;
    opened.records = openIngestRecords({
      projectDir: opened.project,
      runId,
      durability: options.durability ?? 'fsync',
      onFailure: recordFailureEvents(events, { nodeId }).report,
    });
    opened.root = await openConfinedRoot(opened.project.dir);
    const concluded = await concludeDocument({
      project: opened.project,
      root: opened.root,
      runId,
      nodeId,
      agentId: options.agentId ?? DEFAULT_AGENT_ID,
      docPath: ids.docPath,
      text,
      records: opened.records,
      events: events.child({ node_id: nodeId }),
      subject: 'node',
      ingest: {
        enabled: true,
        sourceKind: options.sourceKind ?? 'graph_runtime',
        mode: options.mode ?? 'unknown',
        ...(options.limits === undefined ? {} : { limits: options.limits }),
        ...(options.parser === undefined ? {} : { parser: options.parser }),
        ...(options.durability === undefined ? {} : { durability: options.durability }),
      },
    });
    if (concluded.status === 'failed') return failedSummary(ids, concluded.code, concluded.message);
    // Not reached: the flag is on and docPath is never under audits/ (checkedDocPath), so concludeDocument ingests.
    if (concluded.ingest === undefined) {
      return failedSummary(ids, 'internal_error', `${ids.docPath} was saved but not ingested`);
    }
    return ingestedSummary(ids, concluded.ingest, concluded.blocks ?? [], firstProblem);
  } catch (error) {
    // Fail-open (spec ingest.md section 6): a project that cannot be opened is reported, the graph goes on.
    return failedSummary(
      ids,
      'io_error',
      redactSecrets(`${ids.docPath} was not ingested: ${describeError(error)}`),
    );
  } finally {
    await closeAll(opened, options.projectDir !== opened.project);
  }
}

/** What the ingest opened, closed in reverse order whatever happened. */
interface Opened {
  project?: Project;
  events?: EventLog;
  records?: IngestRecords;
  root?: ConfinedRoot;
}

async function closeAll(opened: Opened, ownStore: boolean): Promise<void> {
  // Fail-open: a close that fails loses at most buffered events, never the files already in place.
  await opened.root?.close().catch(() => undefined);
  await opened.records?.close().catch(() => undefined);
  await opened.events?.close().catch(() => undefined);
  if (ownStore) await opened.project?.store.close().catch(() => undefined);
}

/** The log as it is, telling `onProblem` of each `ingest.error` event written through it or its children. */
function noticingProblems(log: EventLog, onProblem: (fields: EventFields) => void): EventLog {
  return {
    write: (level, event, fields) => {
      if (event === 'ingest.error' && fields !== undefined) onProblem(fields);
      log.write(level, event, fields);
    },
    writeAll: (entries) => {
      log.writeAll(entries);
    },
    child: (bindings) => noticingProblems(log.child(bindings), onProblem),
    close: () => log.close(),
  };
}
