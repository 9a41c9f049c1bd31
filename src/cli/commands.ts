import type { CliIo } from './cli-io.js';

/** Help text of `artifact-ingest` itself. */
export const MAIN_HELP = `Usage: artifact-ingest <command> [options]

Turn the file blocks in AI agents' markdown documents into real files, safely.

Commands:
  run GRAPH                run a graph of agent nodes (built-in: single, self_critique, team, ralph)
  runs                     list the runs of a project
  show RUN_ID              show one run: nodes, documents, manifests
  ingest [PATH|GLOB ...]   extract \`\`\`<lang> file=<path> blocks into workspace/
  watch [DIR]              ingest each document written under DIR (default docs/) once it settles
  demo                     run the team graph on the embedded demo replies, ingest on
  mcp                      serve workflows over MCP (stdio) to a coding assistant

Contract artifacts (the one canonical path, and its audit):
  submit TYPE [FILE|-]     validate a JSON artifact and submit it to a run (--run-id ID)
  audit [RUN_ID]           find artifacts that did not come through submit, or changed since

Workflows (the steps an outside agent is handed, also over MCP):
  workflow list|start|status|advance|register|abort
                           drive a workflow run from the command line (workflow --help)

Artifacts (read-only: they never run a node or change a run):
  replay RUN_ID            a run step by step: nodes, agents, artifacts (--backward: diffs)
  report RUN_ID            one self-contained HTML page about a run (--path P: a path's lineage)
  checkout                 rebuild the workspace as it was (--step N | --at TIME) into a folder
  log PATH                 every recorded version of a path across runs
  verify [RUN_ID]          re-hash objects and the workspace; report corruption and drift
  bundle RUN_ID -o FILE    pack a run and the objects it references into a .tar.gz
  import FILE              verify a bundle and add its run and objects to the project
  export openlineage RUN_ID
                           a run as OpenLineage events: NDJSON, or POSTed to Marquez (--url)
  reindex                  rebuild the path index from the runs' artifacts.jsonl
With --remote, runs, show, log, replay, checkout, verify, report and export read the fleet's remote
(docs/remote.md) instead of .agent/.

Fleet (a remote: a PostgreSQL catalog and an object store, docs/remote.md):
  push [RUN_ID ...]        send runs to the remote (default: what .agent/outbox/ holds; --all: every run)
  pull RUN_ID              copy a run from the remote into .agent/, every content verified
  remote init|status       create or migrate the catalog's schema; is the remote reachable, what is pending

  help [COMMAND]           show help for a command

Options:
  -h, --help      show this help
  -v, --version   print the version

Run 'artifact-ingest <command> --help' for a command's options.
Documentation: docs/ in the package (README.md links every page).
`;

/** A command: runs with its arguments and the I/O context, returns the exit code or throws. */
export interface Command {
  run(args: readonly string[], io: CliIo): Promise<number>;
  readonly help: string;
}

/** Every command by name; each loads on demand, so `--help`, `--version` and a command pay only for what they use. */
export const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  run: async () => {
    const { runCommand, RUN_HELP } = await import('./run/run-command.js');
    return { run: runCommand, help: RUN_HELP };
  },
  runs: async () => {
    const { runsCommand, RUNS_HELP } = await import('./run/runs-command.js');
    return { run: runsCommand, help: RUNS_HELP };
  },
  show: async () => {
    const { showCommand, SHOW_HELP } = await import('./run/show-command.js');
    return { run: showCommand, help: SHOW_HELP };
  },
  ingest: async () => {
    const { ingestCommand, INGEST_HELP } = await import('./ingest/ingest-command.js');
    return { run: ingestCommand, help: INGEST_HELP };
  },
  watch: async () => {
    const { watchCommand, WATCH_HELP } = await import('./ingest/watch-command.js');
    return { run: watchCommand, help: WATCH_HELP };
  },
  demo: async () => {
    const { demoCommand, DEMO_HELP } = await import('./run/demo-command.js');
    return { run: demoCommand, help: DEMO_HELP };
  },
  mcp: async () => {
    const { mcpCommand, MCP_HELP } = await import('./mcp-command.js');
    return { run: mcpCommand, help: MCP_HELP };
  },
  replay: async () => {
    const { replayCommand, REPLAY_HELP } = await import('./lineage/replay-command.js');
    return { run: replayCommand, help: REPLAY_HELP };
  },
  report: async () => {
    const { reportCommand, REPORT_HELP } = await import('./run/report-command.js');
    return { run: reportCommand, help: REPORT_HELP };
  },
  checkout: async () => {
    const { checkoutCommand, CHECKOUT_HELP } = await import('./lineage/checkout-command.js');
    return { run: checkoutCommand, help: CHECKOUT_HELP };
  },
  log: async () => {
    const { logCommand, LOG_HELP } = await import('./lineage/log-command.js');
    return { run: logCommand, help: LOG_HELP };
  },
  verify: async () => {
    const { verifyCommand, VERIFY_HELP } = await import('./lineage/verify-command.js');
    return { run: verifyCommand, help: VERIFY_HELP };
  },
  reindex: async () => {
    const { reindexCommand, REINDEX_HELP } = await import('./lineage/reindex-command.js');
    return { run: reindexCommand, help: REINDEX_HELP };
  },
  bundle: async () => {
    const { bundleCommand, BUNDLE_HELP } = await import('./share/bundle-command.js');
    return { run: bundleCommand, help: BUNDLE_HELP };
  },
  workflow: async () => {
    const { workflowCommand, WORKFLOW_HELP } = await import('./workflow/workflow-command.js');
    return { run: workflowCommand, help: WORKFLOW_HELP };
  },
  import: async () => {
    const { importCommand, IMPORT_HELP } = await import('./share/import-command.js');
    return { run: importCommand, help: IMPORT_HELP };
  },
  export: async () => {
    const { exportCommand, EXPORT_HELP } = await import('./share/export-command.js');
    return { run: exportCommand, help: EXPORT_HELP };
  },
  submit: async () => {
    const { submitCommand, SUBMIT_HELP } = await import('./workflow/submit-command.js');
    return { run: submitCommand, help: SUBMIT_HELP };
  },
  push: async () => {
    const { pushCommand, PUSH_HELP } = await import('./fleet/push-command.js');
    return { run: pushCommand, help: PUSH_HELP };
  },
  pull: async () => {
    const { pullCommand, PULL_HELP } = await import('./fleet/pull-command.js');
    return { run: pullCommand, help: PULL_HELP };
  },
  remote: async () => {
    const { remoteCommand, REMOTE_HELP } = await import('./fleet/remote-command.js');
    return { run: remoteCommand, help: REMOTE_HELP };
  },
  audit: async () => {
    const { auditCommand, AUDIT_HELP } = await import('./workflow/audit-command.js');
    return { run: auditCommand, help: AUDIT_HELP };
  },
};
