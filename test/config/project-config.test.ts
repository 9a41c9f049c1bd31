import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { parseProjectConfig } from '../../src/config/load-project-config.js';
import { DEFAULT_PROJECT_CONFIG, PROJECT_CONFIG_KEYS } from '../../src/config/project-config.js';

function messagesOf(text: string): string[] {
  try {
    parseProjectConfig(text);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((issue) => issue.message);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('projectConfigSchema: one schema for every section', () => {
  it('reads ingest, agents and runtime from one file in one parse', () => {
    const text =
      'ingest:\n  enabled: true\nagents:\n  planner: { kind: replay, dir: r }\nruntime:\n  concurrency: 3\n  max_run_document_bytes: 1048576\n';
    const config = parseProjectConfig(text, 'c.yaml', '/p');
    expect(config.ingest).toEqual({ ...DEFAULT_PROJECT_CONFIG.ingest, enabled: true });
    expect([...config.agents]).toEqual([['planner', { kind: 'replay', dir: '/p/r' }]]);
    expect(config.runtime).toEqual({ concurrency: 3, maxRunDocumentBytes: 1_048_576 });
  });

  it('checks the agents and runtime sections together with ingest, reporting all problems at once', () => {
    expect(
      messagesOf('ingest:\n  enabled: maybe\nagents:\n  planner: { kind: nonsense }\nruntime: [1, 2]\n'),
    ).toEqual([
      expect.stringContaining('expected true or false'),
      expect.stringContaining('unknown agent kind "nonsense"'),
      expect.stringContaining('expected a mapping, got a list'),
    ]);
  });

  it('reports a misspelt top-level key, suggesting the section meant', () => {
    const allowed = '(allowed here: ingest, agents, runtime, workflow, contracts, remote, git)';
    expect(messagesOf('agent:\n  planner: {}\nruntme:\n  concurrency: 2\n')).toEqual([
      `unknown key "agent"; did you mean "agents"? Rename it, or remove it ${allowed}`,
      `unknown key "runtme"; did you mean "runtime"? Rename it, or remove it ${allowed}`,
    ]);
  });

  it('accepts the reserved workflow: and contracts: sections empty, and refuses keys in them', () => {
    expect(parseProjectConfig('workflow:\ncontracts: {}\n').workflow).toEqual({});
    expect(messagesOf('workflow:\n  dir: flows\n')).toEqual(['unknown key "dir"; remove it']);
    expect(messagesOf('contracts: 3\n')).toEqual([
      'expected a mapping, got 3; "contracts:" takes no keys yet (it is reserved); leave it empty or remove it',
    ]);
  });

  it('lists the top-level keys of the file', () => {
    expect(PROJECT_CONFIG_KEYS['']).toEqual([
      'ingest',
      'agents',
      'runtime',
      'workflow',
      'contracts',
      'remote',
      'git',
    ]);
  });
});
