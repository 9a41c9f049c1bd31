import { describe, expect, it } from 'vitest';
import { AgentError, type AgentConfig } from '../../../src/runtime/agents/agent.js';
import { createAgent } from '../../../src/runtime/agents/create-agent.js';

describe('createAgent', () => {
  it.each<[AgentConfig['kind'], AgentConfig]>([
    ['replay', { kind: 'replay', dir: 'fixtures/demo' }],
    ['command', { kind: 'command', command: ['ollama', 'run', 'llama3'], timeoutMs: 1000 }],
    [
      'openai',
      {
        kind: 'openai',
        baseURL: 'http://127.0.0.1:9/v1',
        model: 'm',
        apiKeyEnv: 'K',
        timeoutMs: 1000,
        maxRetries: 0,
      },
    ],
  ])('builds a %s agent under the configured name', (kind, config) => {
    expect(createAgent('worker', config, {})).toMatchObject({ name: 'worker', kind });
  });

  it('reads the openai key from the env it was given, not from process.env', async () => {
    const agent = createAgent(
      'cloud',
      {
        kind: 'openai',
        baseURL: 'http://127.0.0.1:9/v1',
        model: 'm',
        apiKeyEnv: 'PATH',
        timeoutMs: 1000,
        maxRetries: 0,
      },
      {},
    );
    const error: unknown = await agent
      .complete({ runId: 'r', nodeId: 'n', prompt: 'p', signal: new AbortController().signal })
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).code).toBe('missing_api_key');
  });
});
