import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../../src/config/config-error.js';
import type { AgentConfig } from '../../src/config/agent-config.js';
import { RUNTIME_CONFIG_DEFAULTS } from '../../src/config/agents-config.js';
import { loadProjectConfig, parseProjectConfig } from '../../src/config/load-project-config.js';
import { PROJECT_CONFIG_FILE } from '../../src/project/index.js';
import { tempProject } from '../helpers/temp-project.js';

const PROJECT = '/projects/p';

function issuesOf(text: string): readonly ConfigIssue[] {
  try {
    parseProjectConfig(text, 'artifact-ingest.config.yaml', PROJECT);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

function agentOf(yaml: string): AgentConfig | undefined {
  const config = parseProjectConfig(`agents:\n  a:\n${yaml}`, 'c.yaml', PROJECT);
  return config.agents.get('a');
}

describe('loadProjectConfig', () => {
  it('returns no agents and the default concurrency when the project has no config file', async () => {
    const config = await loadProjectConfig(await tempProject());
    expect(config.agents.size).toBe(0);
    expect(config.runtime).toEqual({ concurrency: 2, maxRunDocumentBytes: 256 * 1024 * 1024 });
  });

  it('reads the agents, runtime and ingest sections of one file in one load', async () => {
    const text = [
      'ingest:',
      '  enabled: true',
      'agents:',
      '  planner:',
      '    kind: replay',
      '    dir: fixtures/replies',
      'runtime:',
      '  concurrency: 4',
      '',
    ].join('\n');
    const dir = await tempProject({ [PROJECT_CONFIG_FILE]: text });
    const config = await loadProjectConfig(dir);
    expect([...config.agents]).toEqual([
      ['planner', { kind: 'replay', dir: path.join(dir, 'fixtures', 'replies') }],
    ]);
    expect(config.runtime.concurrency).toBe(4);
    expect(config.ingest.enabled).toBe(true);
  });

  it('names the file, line and column of a problem', async () => {
    const dir = await tempProject({ [PROJECT_CONFIG_FILE]: 'runtime:\n  concurrency: 0\n' });
    await expect(loadProjectConfig(dir)).rejects.toThrow(
      `${path.join(dir, PROJECT_CONFIG_FILE)}:2:16: runtime.concurrency: 0 is too small`,
    );
  });

  it.each([
    ['0', '0 is too small'],
    ['1.5', 'expected a whole number, got 1.5'],
    ['2000000000000', '2000000000000 is too large'],
  ])('refuses runtime.max_run_document_bytes: %s', async (value, problem) => {
    const dir = await tempProject({
      [PROJECT_CONFIG_FILE]: `runtime:\n  max_run_document_bytes: ${value}\n`,
    });
    await expect(loadProjectConfig(dir)).rejects.toThrow(
      `${path.join(dir, PROJECT_CONFIG_FILE)}:2:27: runtime.max_run_document_bytes: ${problem}`,
    );
  });

  it('reports a directory in place of the config file as a ConfigError', async () => {
    const dir = await tempProject();
    await mkdir(path.join(dir, PROJECT_CONFIG_FILE));
    await expect(loadProjectConfig(dir)).rejects.toBeInstanceOf(ConfigError);
  });
});

describe('parseProjectConfig agents', () => {
  it.each<[string, string, AgentConfig]>([
    [
      'a replay agent, its dir resolved against the project',
      '    kind: replay\n    dir: replies\n',
      { kind: 'replay', dir: '/projects/p/replies' },
    ],
    [
      'a replay agent with an absolute dir',
      '    kind: replay\n    dir: /srv/replies\n',
      { kind: 'replay', dir: '/srv/replies' },
    ],
    [
      'a command agent with defaults',
      '    kind: command\n    command: [llm, -m, mistral]\n',
      {
        kind: 'command',
        command: ['llm', '-m', 'mistral'],
        timeoutMs: RUNTIME_CONFIG_DEFAULTS.commandTimeoutMs,
      },
    ],
    [
      'a command agent with every key',
      '    kind: command\n    command: [./run.sh]\n    timeout_ms: 5000\n    cwd: tools\n',
      { kind: 'command', command: ['./run.sh'], timeoutMs: 5000, cwd: '/projects/p/tools' },
    ],
    [
      'an openai agent with defaults',
      '    kind: openai\n    model: gpt-4o-mini\n',
      {
        kind: 'openai',
        baseURL: 'https://api.openai.com/v1',
        model: 'gpt-4o-mini',
        apiKeyEnv: 'OPENAI_API_KEY',
        timeoutMs: 120_000,
        maxRetries: 2,
      },
    ],
    [
      'an openai agent with every key',
      [
        '    kind: openai',
        '    base_url: http://127.0.0.1:11434/v1',
        '    model: llama3',
        '    api_key_env: LOCAL_KEY',
        '    timeout_ms: 30000',
        '    max_retries: 0',
        '    temperature: 0.2',
        '',
      ].join('\n'),
      {
        kind: 'openai',
        baseURL: 'http://127.0.0.1:11434/v1',
        model: 'llama3',
        apiKeyEnv: 'LOCAL_KEY',
        timeoutMs: 30_000,
        maxRetries: 0,
        temperature: 0.2,
      },
    ],
  ])('reads %s', (_name, yaml, expected) => {
    expect(agentOf(yaml)).toEqual(expected);
  });

  it('keeps agents in file order and finds names that are Object.prototype keys only when configured', () => {
    const config = parseProjectConfig(
      'agents:\n  writer:\n    kind: replay\n    dir: w\n  constructor:\n    kind: replay\n    dir: c\n',
      'c.yaml',
      PROJECT,
    );
    expect([...config.agents.keys()]).toEqual(['writer', 'constructor']);
    expect(parseProjectConfig('', 'c.yaml', PROJECT).agents.get('constructor')).toBeUndefined();
  });

  it.each([
    ['an empty file', ''],
    ['empty sections', 'agents:\nruntime:\n'],
    ['only an ingest section', 'ingest:\n  enabled: true\n'],
  ])('returns the defaults for %s', (_name, text) => {
    const config = parseProjectConfig(text, 'c.yaml', PROJECT);
    expect(config.agents.size).toBe(0);
    expect(config.runtime.concurrency).toBe(RUNTIME_CONFIG_DEFAULTS.concurrency);
  });
});

describe('parseProjectConfig errors', () => {
  it.each<[string, string, [path: string, message: string][]]>([
    [
      'a misspelt top-level key',
      'agent:\n  a: 1\n',
      [
        [
          'agent',
          'unknown key "agent"; did you mean "agents"? Rename it, or remove it (allowed here: ingest, agents, runtime, workflow, contracts, remote, git)',
        ],
      ],
    ],
    [
      'agents as a list',
      'agents: [a]\n',
      [
        [
          'agents',
          'expected a mapping of agent names to agents, got a list; indent the agents under "agents:"',
        ],
      ],
    ],
    [
      'an agent that is a string',
      'agents:\n  a: replay\n',
      [['agents.a', 'expected an agent (a mapping with kind: replay, command, openai), got "replay"']],
    ],
    [
      'an agent without kind',
      'agents:\n  a:\n    dir: x\n',
      [['agents.a.kind', 'missing; add kind: replay (or command, openai)']],
    ],
    [
      'a misspelt kind',
      'agents:\n  a:\n    kind: comand\n',
      [['agents.a.kind', 'unknown agent kind "comand"; did you mean "command"?']],
    ],
    [
      'an unknown kind',
      'agents:\n  a:\n    kind: http\n',
      [['agents.a.kind', 'unknown agent kind "http"; write one of replay, command, openai']],
    ],
    [
      'an agent name with a space',
      'agents:\n  my agent:\n    kind: replay\n    dir: x\n',
      [
        [
          'agents.my agent',
          '"my agent" is not a valid agent name; use 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit',
        ],
      ],
    ],
    [
      'a replay agent without dir',
      'agents:\n  a:\n    kind: replay\n',
      [['agents.a.dir', 'missing; add dir: fixtures/replies']],
    ],
    [
      'a key of another kind',
      'agents:\n  a:\n    kind: replay\n    dir: x\n    model: gpt\n',
      [['agents.a.model', 'unknown key "model"; remove it (allowed here: kind, dir)']],
    ],
    [
      'a misspelt key, suggested from the keys of its kind',
      'agents:\n  a:\n    kind: command\n    command: [x]\n    timeout: 5\n',
      [
        [
          'agents.a.timeout',
          'unknown key "timeout"; did you mean "timeout_ms"? Rename it, or remove it (allowed here: kind, command, timeout_ms, cwd)',
        ],
      ],
    ],
    [
      'a command given as a string',
      'agents:\n  a:\n    kind: command\n    command: llm -m x\n',
      [
        [
          'agents.a.command',
          'expected a list (the program, then its arguments; no shell runs it), got "llm -m x"; write it as command: [llm, -m, mistral]',
        ],
      ],
    ],
    [
      'an empty command',
      'agents:\n  a:\n    kind: command\n    command: []\n',
      [['agents.a.command', 'is empty; name at least the program']],
    ],
    [
      'an empty argument',
      'agents:\n  a:\n    kind: command\n    command: [llm, ""]\n',
      [['agents.a.command[1]', 'is empty']],
    ],
    [
      'a zero timeout',
      'agents:\n  a:\n    kind: command\n    command: [x]\n    timeout_ms: 0\n',
      [['agents.a.timeout_ms', '0 is too small; write a whole number from 1 to 86400000']],
    ],
    [
      'a fractional timeout',
      'agents:\n  a:\n    kind: command\n    command: [x]\n    timeout_ms: 1.5\n',
      [['agents.a.timeout_ms', 'expected a whole number, got 1.5']],
    ],
    [
      'an openai agent without model',
      'agents:\n  a:\n    kind: openai\n',
      [['agents.a.model', 'missing; add model: gpt-4o-mini']],
    ],
    [
      'a base_url that is no URL',
      'agents:\n  a:\n    kind: openai\n    model: m\n    base_url: localhost\n',
      [['agents.a.base_url', '"localhost" is not a URL']],
    ],
    [
      'a base_url of another scheme',
      'agents:\n  a:\n    kind: openai\n    model: m\n    base_url: ftp://x/v1\n',
      [['agents.a.base_url', 'expected an http:// or https:// URL, got ftp:']],
    ],
    [
      'too many retries',
      'agents:\n  a:\n    kind: openai\n    model: m\n    max_retries: 11\n',
      [
        [
          'agents.a.max_retries',
          '11 is too large; write a whole number from 0 to 10, such as max_retries: 2',
        ],
      ],
    ],
    [
      'a temperature out of range',
      'agents:\n  a:\n    kind: openai\n    model: m\n    temperature: 3\n',
      [['agents.a.temperature', 'must be from 0 to 2']],
    ],
    [
      'runtime as a number',
      'runtime: 3\n',
      [['runtime', 'expected a mapping, got 3; indent its keys under "runtime:"']],
    ],
    [
      'a misspelt runtime key',
      'runtime:\n  concurency: 3\n',
      [['runtime.concurency', 'unknown key "concurency"; did you mean "concurrency"?']],
    ],
    [
      'too much concurrency',
      'runtime:\n  concurrency: 65\n',
      [['runtime.concurrency', '65 is too large; write a whole number from 1 to 64']],
    ],
    [
      'concurrency as text',
      'runtime:\n  concurrency: two\n',
      [['runtime.concurrency', 'expected a whole number, got "two"']],
    ],
    [
      'a top level that is a list',
      '- agents\n',
      [
        [
          '',
          'expected a mapping of ingest, agents, runtime, workflow, contracts, remote, git, got a list; see docs/configuration.md',
        ],
      ],
    ],
  ])('explains %s', (_name, text, expected) => {
    const issues = issuesOf(text);
    expect(issues.map((issue) => issue.path)).toEqual(expected.map(([where]) => where));
    for (const [index, [, message]] of expected.entries()) expect(issues[index]?.message).toContain(message);
  });

  it('reports every problem at once, each at its line and column', () => {
    const text = [
      'agents:', //                1
      '  planner:', //             2
      '    kind: replay', //       3
      '    dri: replies', //       4  misspelt key, and dir missing (at the agent, 3:5)
      '  builder:', //             5
      '    kind: command', //      6
      '    command: [llm]', //     7
      '    timeout_ms: -1', //     8
      'runtime:', //               9
      '  concurrency: 0', //       10
      '',
    ].join('\n');
    expect(issuesOf(text).map(({ path: where, line, column }) => ({ where, line, column }))).toEqual([
      { where: 'agents.planner.dir', line: 3, column: 5 },
      { where: 'agents.planner.dri', line: 4, column: 5 },
      { where: 'agents.builder.timeout_ms', line: 8, column: 17 },
      { where: 'runtime.concurrency', line: 10, column: 16 },
    ]);
  });
});

describe('parseProjectConfig secrets', () => {
  const KEY = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';

  it.each(['replay', 'command', 'openai'])('refuses api_key in a %s agent without repeating it', (kind) => {
    const rest =
      kind === 'replay' ? '    dir: x\n' : kind === 'command' ? '    command: [x]\n' : '    model: m\n';
    const issues = issuesOf(`agents:\n  a:\n    kind: ${kind}\n${rest}    api_key: ${KEY}\n`);
    expect(issues).toEqual([
      {
        path: 'agents.a.api_key',
        line: 5,
        column: 14,
        message:
          'never write an API key in this file; put it in an environment variable and name that variable in api_key_env (such as api_key_env: OPENAI_API_KEY)',
      },
    ]);
  });

  it('refuses a key pasted into api_key_env without repeating it', () => {
    const [issue] = issuesOf(`agents:\n  a:\n    kind: openai\n    model: m\n    api_key_env: ${KEY}\n`);
    expect(issue?.path).toBe('agents.a.api_key_env');
    expect(issue?.message).toContain('never the key itself');
    expect(issue?.message).not.toContain('sk-proj');
  });

  it('refuses credentials in base_url without repeating them', () => {
    const [issue] = issuesOf(
      `agents:\n  a:\n    kind: openai\n    model: m\n    base_url: https://user:${KEY}@api.example.com/v1\n`,
    );
    expect(issue?.message).toMatch(/^the URL holds credentials; never write an API key in this file/);
    expect(issue?.message).not.toContain('sk-proj');
  });

  it('never shows the key in the whole error message', async () => {
    const dir = await tempProject();
    await writeFile(
      path.join(dir, PROJECT_CONFIG_FILE),
      `agents:\n  a:\n    kind: openai\n    model: m\n    api_key: ${KEY}\n`,
    );
    await expect(loadProjectConfig(dir)).rejects.toThrow(/^(?![\s\S]*sk-proj)[\s\S]*api_key_env/);
  });
});
