import { describe, expect, it } from 'vitest';
import { parseNodeId, parseRunId } from '../../src/project/ids.js';
import {
  artifactRecordsPath,
  contractArtifactPath,
  manifestPath,
  objectPath,
  pathIndexEntry,
  pathIndexFile,
  runDir,
  runDocsDir,
  runEventsPath,
  runLockPath,
  runStatePath,
  runTransitionsPath,
  tracePath,
  watchStatePath,
  workspacePath,
} from '../../src/project/project-layout.js';

const run = parseRunId('run-1');
const node = parseNodeId('plan');
const hex = 'ab'.padEnd(64, 'c');

describe('the project layout (spec ingest.md, "Project layout")', () => {
  it.each([
    [runDir(run), '.agent/runs/run-1'],
    [runStatePath(run), '.agent/runs/run-1/state.json'],
    [runTransitionsPath(run), '.agent/runs/run-1/transitions.jsonl'],
    [runEventsPath(run), '.agent/runs/run-1/events.jsonl'],
    [manifestPath(run, node), '.agent/runs/run-1/manifests/plan.json'],
    [artifactRecordsPath(run), '.agent/runs/run-1/artifacts.jsonl'],
    [tracePath(run, node), '.agent/runs/run-1/traces/plan.json'],
    [runLockPath(run), '.agent/runs/run-1/lock'],
    [objectPath(hex), `.agent/objects/sha256/ab/${hex.slice(2)}`],
    [pathIndexFile(hex), `.agent/index/paths/ab/${hex.slice(2)}.jsonl`],
    [pathIndexEntry(hex), `ab/${hex.slice(2)}.jsonl`],
    [contractArtifactPath(run, 'plan'), '.agent/artifacts/run-1/plan.json'],
    [runDocsDir(run), 'docs/run-1'],
    [workspacePath('src/a.ts'), 'workspace/src/a.ts'],
    [watchStatePath(run), '.agent/watch/run-1.json'],
  ])('places %s', (actual, expected) => {
    expect(actual).toBe(expected);
  });
});
