import type { Budgets, ContractType } from '../../contracts/index.js';
import type { IngestMode } from '../../ingest/index.js';
import type { NodeId } from '../../project/index.js';

/** Node types of a graph (spec runtime.md; `command` runs real commands and submits `smoke_test_result`). */
export type GraphNodeType = 'agent_task' | 'write_file' | 'command';

/** One node of a loaded, validated graph. Templates are kept as written and rendered at run time. */
export interface GraphNode {
  readonly id: NodeId;
  readonly type: GraphNodeType;
  /** Ids of the nodes this one waits for (a DAG; validated at load time). */
  readonly dependsOn: readonly NodeId[];
  /** agent_task: the agent name from the run's agent configuration. */
  readonly agent?: string;
  /** agent_task: the prompt template. */
  readonly prompt?: string;
  /** write_file: the content template. */
  readonly content?: string;
  /** command: the argv lists to run, in order (literal, no templates, no shell). */
  readonly commands?: readonly (readonly string[])[];
  /** command: how long each command may run, in ms (default 120000). */
  readonly timeoutMs?: number;
  /** The artifact type the node must produce (spec contracts.md); a command node's is `smoke_test_result`. */
  readonly contract?: ContractType;
  /** Template of the document path; must resolve under docs/ or audits/. */
  readonly outputPath: string;
}

/** A graph definition, loaded from YAML and validated. */
export interface GraphDefinition {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  /** Required run inputs, usable as {name} in templates. */
  readonly inputs: readonly string[];
  /** Graph mode recorded in manifests: the `mode` key, else the name when it is a mode, else 'unknown'. */
  readonly mode: IngestMode;
  readonly nodes: readonly GraphNode[];
  /** The top-level `budgets:` map; an absent budget is unlimited (max_fix_attempts: 2). */
  readonly budgets?: Budgets;
  /** sha256 (hex) of the definition's YAML text: pinned by runs, key of the definition cache. */
  readonly hash: string;
  /** Where it came from: a file path, or `builtin:<name>`. */
  readonly source: string;
}
