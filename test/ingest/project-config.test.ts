import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/ingest/config-error.js';
import { parseProjectConfig } from '../../src/ingest/load-config.js';
import { DEFAULT_PROJECT_CONFIG, PROJECT_CONFIG_KEYS } from '../../src/ingest/project-config.js';

describe('projectConfigSchema and the runtime sections', () => {
  it('accepts agents: and runtime: without checking them (the runtime loader does)', () => {
    const text = 'ingest:\n  enabled: true\nagents:\n  planner: { kind: nonsense }\nruntime: [1, 2]\n';
    expect(parseProjectConfig(text)).toEqual({ ingest: { ...DEFAULT_PROJECT_CONFIG.ingest, enabled: true } });
  });

  it('still reports a misspelt top-level key, suggesting the runtime sections too', () => {
    let error: unknown;
    try {
      parseProjectConfig('agent:\n  planner: {}\nruntme:\n  concurrency: 2\n');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((issue) => issue.message)).toEqual([
      'unknown key "agent"; did you mean "agents"? Rename it, or remove it (allowed here: ingest, agents, runtime)',
      'unknown key "runtme"; did you mean "runtime"? Rename it, or remove it (allowed here: ingest, agents, runtime)',
    ]);
  });

  it('lists the top-level keys of the file', () => {
    expect(PROJECT_CONFIG_KEYS['']).toEqual(['ingest', 'agents', 'runtime']);
  });
});
