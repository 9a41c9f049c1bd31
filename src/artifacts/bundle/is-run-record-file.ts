/**
 * The files the runtime, the workflow engine, the ingest and the recorder write in `.agent/runs/<runId>/`
 * (paths of src/project's layout and of the workflow state): state and its transition log, events, records, terminal state, the
 * pinned workflow, the short-held locks, and one JSON per node or step in manifests/, traces/ and snapshots/.
 */
const RUN_RECORD_FILE =
  /^(?:state\.json|transitions\.jsonl|events\.jsonl|artifacts\.jsonl|terminal\.json|workflow\.yaml|state\.lock|submit\.lock|(?:manifests|traces|snapshots)\/[^/]+\.json)$/u;

/** Whether a path inside a run folder (relative to it) is a file a run folder holds; bundles carry no other. */
export function isRunRecordFile(relativeToRun: string): boolean {
  return RUN_RECORD_FILE.test(relativeToRun);
}

/** The run folder's files as a message lists them. */
export const RUN_RECORD_FILES_SHOWN =
  'state.json, transitions.jsonl, events.jsonl, artifacts.jsonl, terminal.json, workflow.yaml, state.lock, submit.lock, manifests/*.json, traces/*.json, snapshots/*.json';
