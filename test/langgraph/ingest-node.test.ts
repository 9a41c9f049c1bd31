import { existsSync } from 'node:fs';
import { readFile, readdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { FakeListChatModel, FakeStreamingChatModel } from '@langchain/core/utils/testing';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import {
  Annotation,
  END,
  MemorySaver,
  MessagesAnnotation,
  MessagesValue,
  START,
  StateGraph,
  StateSchema,
} from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { readArtifactRecords, replayRun } from '../../src/artifacts/index.js';
import { InvalidIdError } from '../../src/project/index.js';
import { ingestDocument } from '../../src/runtime/index.js';
import {
  IngestAnnotation,
  IngestNodeError,
  ingestNode,
  ingestNodeSummarySchema,
} from '../../src/langgraph/index.js';
import type { IngestNodeOptions, IngestNodeSummary } from '../../src/langgraph/index.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';

/** A model's answer: a file, a nested-fence file (a ```` block holding a ``` fence), and a '../' path. */
const ANSWER = [
  '# Plan\n\n',
  fileBlock('ts', 'src/app.ts', 'export const answer = 42;\n'),
  '\n',
  fileBlock('markdown', 'docs/README.md', '# Readme\n\n```sh\nnpm test\n```\n', '````'),
  '\n',
  fileBlock('sh', '../escape.sh', 'rm -rf /\n'),
].join('');

const State = Annotation.Root({ ...MessagesAnnotation.spec, ...IngestAnnotation.spec });

/**
 * START -> model -> save -> END: the model node calls `model` on the messages, the ingest node follows it (a node
 * may not be named `ingest`: LangGraph refuses a node named as a state key).
 */
function compiledGraph(model: BaseChatModel, options: IngestNodeOptions, checkpointer?: MemorySaver) {
  return new StateGraph(State)
    .addNode('model', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode('save', ingestNode(options))
    .addEdge(START, 'model')
    .addEdge('model', 'save')
    .addEdge('save', END)
    .compile(checkpointer === undefined ? {} : { checkpointer });
}

const ask = { messages: [new HumanMessage('Write the app.')] };
const thread = (id: string) => ({ configurable: { thread_id: id } });

async function readJson(file: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
}

/** The manifest without its timestamp. */
async function manifestOf(
  projectDir: string,
  runId: string,
  nodeId: string,
): Promise<Record<string, unknown>> {
  const manifest = await readJson(path.join(projectDir, '.agent/runs', runId, 'manifests', `${nodeId}.json`));
  delete manifest['ts'];
  return manifest;
}

describe('ingestNode in a compiled StateGraph', () => {
  it('saves the last AI message and ingests it as a post-write ingest of the same text does', async () => {
    const projectDir = await tempProject();
    const graph = compiledGraph(new FakeListChatModel({ responses: [ANSWER] }), {
      projectDir,
      durability: 'none',
    });

    const state = await graph.invoke(ask, thread('chat-1'));

    // The answer is saved byte for byte where the node's defaults put it: docs/<thread_id>/<node name>.md.
    expect(await readFile(path.join(projectDir, 'docs/chat-1/save.md'), 'utf8')).toBe(ANSWER);
    expect(await readFile(path.join(projectDir, 'workspace/src/app.ts'), 'utf8')).toBe(
      'export const answer = 42;\n',
    );
    expect(await readFile(path.join(projectDir, 'workspace/docs/README.md'), 'utf8')).toBe(
      '# Readme\n\n```sh\nnpm test\n```\n',
    );
    expect(existsSync(path.join(projectDir, 'escape.sh'))).toBe(false);
    expect(existsSync(path.join(projectDir, 'workspace/escape.sh'))).toBe(false);
    expect(state.ingest).toEqual({
      status: 'ingested',
      run_id: 'chat-1',
      node_id: 'save',
      doc_path: 'docs/chat-1/save.md',
      total_blocks: 3,
      written: 2,
      unchanged: 0,
      skipped: 0,
      rejected: 1,
      manifest_path: '.agent/runs/chat-1/manifests/save.json',
      files: [
        { path: 'workspace/src/app.ts', status: 'written' },
        { path: 'workspace/docs/README.md', status: 'written' },
        { path: '../escape.sh', status: 'rejected', reason: 'traversal' },
      ],
      problems: [],
    } satisfies IngestNodeSummary);

    const reference = await tempProject({ 'docs/chat-1/save.md': ANSWER });
    await ingestDocument({
      projectDir: reference,
      docPath: 'docs/chat-1/save.md',
      runId: 'chat-1',
      nodeId: 'save',
      sourceKind: 'graph_runtime',
      durability: 'none',
    });
    expect(await manifestOf(projectDir, 'chat-1', 'save')).toEqual(
      await manifestOf(reference, 'chat-1', 'save'),
    );
  });

  it('records the document and its files, which replay shows, and writes the ingest events to the run', async () => {
    const projectDir = await tempProject();
    const graph = compiledGraph(new FakeListChatModel({ responses: [ANSWER] }), {
      projectDir,
      runId: 'run-7',
      nodeId: 'coder',
      durability: 'none',
    });

    await graph.invoke(ask);

    const { records, problems } = await readArtifactRecords(projectDir, 'run-7');
    expect(problems).toEqual([]);
    expect(records.map((record) => [record.type, record.path, record.taskId, record.agentId])).toEqual([
      ['message', 'docs/run-7/coder.md', 'coder', 'langgraph'],
      ['file', 'workspace/src/app.ts', 'coder', 'langgraph'],
      ['file', 'workspace/docs/README.md', 'coder', 'langgraph'],
    ]);
    const events = (await readFile(path.join(projectDir, '.agent/runs/run-7/events.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // What `artifact-ingest replay` shows of the run: the node's step with its ingest and its artifacts.
    const replay = await replayRun(projectDir, 'run-7');
    expect(replay.steps).toEqual([
      expect.objectContaining({
        taskId: 'coder',
        agentId: 'langgraph',
        outcome: 'completed',
        ingest: expect.objectContaining({ written: 2, rejected: 1 }) as unknown,
      }),
    ]);
    expect(events.filter((event) => event['event'] === 'ingest.summary')).toEqual([
      expect.objectContaining({ run_id: 'run-7', node_id: 'coder', written: 2, rejected: 1 }),
    ]);
  });

  it('records `unchanged` when the same thread gets the same answer again, and checkpoints the summary', async () => {
    const projectDir = await tempProject();
    const checkpointer = new MemorySaver();
    const graph = compiledGraph(
      new FakeListChatModel({ responses: [ANSWER, ANSWER] }),
      { projectDir, durability: 'none' },
      checkpointer,
    );

    const first = await graph.invoke(ask, thread('chat-2'));
    const manifestPath = path.join(projectDir, '.agent/runs/chat-2/manifests/save.json');
    const firstManifest = await readJson(manifestPath);
    const second = await graph.invoke({ messages: [new HumanMessage('Again, please.')] }, thread('chat-2'));

    expect(first.ingest?.written).toBe(2);
    expect(second.messages).toHaveLength(4);
    expect(second.ingest).toMatchObject({
      status: 'ingested',
      written: 0,
      unchanged: 2,
      skipped: 2,
      rejected: 1,
      files: [
        { path: 'workspace/src/app.ts', status: 'unchanged' },
        { path: 'workspace/docs/README.md', status: 'unchanged' },
        { path: '../escape.sh', status: 'rejected', reason: 'traversal' },
      ],
    });
    // The manifest says what this ingest did (nothing written), about the very same bytes.
    const secondManifest = await readJson(manifestPath);
    const entries = (manifest: Record<string, unknown>) =>
      (manifest['artifacts'] as Record<string, unknown>[]).map((entry) => [
        entry['workspace_path'],
        entry['sha256'],
        entry['status'],
        String(entry['reason']).split(':')[0],
      ]);
    expect(entries(secondManifest)).toEqual([
      ['workspace/src/app.ts', entries(firstManifest)[0]![1], 'skipped', 'unchanged'],
      ['workspace/docs/README.md', entries(firstManifest)[1]![1], 'skipped', 'unchanged'],
      ['', entries(firstManifest)[2]![1], 'rejected', 'traversal'],
    ]);
    const { records } = await readArtifactRecords(projectDir, 'chat-2');
    expect(records.filter((record) => record.type === 'file')).toHaveLength(2);

    const snapshot = await graph.getState(thread('chat-2'));
    expect((snapshot.values as typeof State.State).ingest).toEqual(second.ingest);
  });

  it('joins the text parts of array content, leaving out the other parts', async () => {
    const projectDir = await tempProject();
    const message = new AIMessage({
      content: [
        { type: 'text', text: '# Two parts\n\n```ts file=src/a.ts\n' },
        { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        { type: 'text', text: 'export const a = 1;\n```\n' },
      ],
    });
    const graph = compiledGraph(new FakeStreamingChatModel({ responses: [message] }), {
      projectDir,
      durability: 'none',
    });

    const state = await graph.invoke(ask, thread('chat-3'));

    const saved = await readFile(path.join(projectDir, 'docs/chat-3/save.md'), 'utf8');
    expect(saved).toBe('# Two parts\n\n```ts file=src/a.ts\nexport const a = 1;\n```\n');
    expect(saved).toBe(state.messages.at(-1)!.text);
    expect(await readFile(path.join(projectDir, 'workspace/src/a.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect(state.ingest).toMatchObject({ status: 'ingested', written: 1 });
  });

  it('ingests a named state key holding the answer as a string', async () => {
    const projectDir = await tempProject();
    const model = new FakeListChatModel({ responses: [ANSWER] });
    const DraftState = Annotation.Root({
      topic: Annotation<string>(),
      draft: Annotation<string>(),
      ...IngestAnnotation.spec,
    });
    const graph = new StateGraph(DraftState)
      .addNode('write', async (state) => ({ draft: (await model.invoke(state.topic)).text }))
      .addNode('save', ingestNode({ projectDir, key: 'draft', docPath: 'docs/draft.md', durability: 'none' }))
      .addEdge(START, 'write')
      .addEdge('write', 'save')
      .addEdge('save', END)
      .compile();

    const state = await graph.invoke({ topic: 'the app' }, thread('drafts'));

    expect(await readFile(path.join(projectDir, 'docs/draft.md'), 'utf8')).toBe(ANSWER);
    // The node id defaults to the graph node's name.
    expect(state.ingest).toMatchObject({ node_id: 'save', doc_path: 'docs/draft.md', written: 2 });
    expect(existsSync(path.join(projectDir, '.agent/runs/drafts/manifests/save.json'))).toBe(true);
  });

  it('works in a StateSchema state with ingestNodeSummarySchema as the ingest field', async () => {
    const projectDir = await tempProject();
    const model = new FakeListChatModel({ responses: [ANSWER] });
    const SchemaState = new StateSchema({
      messages: MessagesValue,
      ingest: ingestNodeSummarySchema.optional(),
    });
    const graph = new StateGraph(SchemaState)
      .addNode('model', async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode('save', ingestNode({ projectDir, durability: 'none' }))
      .addEdge(START, 'model')
      .addEdge('model', 'save')
      .addEdge('save', END)
      .compile();

    const state = await graph.invoke(ask, thread('schema'));

    expect(state.ingest).toMatchObject({ status: 'ingested', written: 2, rejected: 1 });
    expect(ingestNodeSummarySchema.safeParse(state.ingest).success).toBe(true);
  });

  it('says there was nothing to ingest when the state holds no AI message, and writes nothing', async () => {
    const projectDir = await tempProject();
    const graph = new StateGraph(State)
      .addNode('save', ingestNode({ projectDir }))
      .addEdge(START, 'save')
      .addEdge('save', END)
      .compile();

    const state = await graph.invoke(ask, thread('quiet'));

    expect(state.ingest).toEqual({
      status: 'nothing_to_ingest',
      reason: 'no_ai_message',
      run_id: 'quiet',
      node_id: 'save',
      doc_path: 'docs/quiet/save.md',
      total_blocks: 0,
      written: 0,
      unchanged: 0,
      skipped: 0,
      rejected: 0,
      manifest_path: '',
      files: [],
      problems: [],
    } satisfies IngestNodeSummary);
    expect(await readdir(projectDir)).toEqual([]);
  });

  it('says there was nothing to ingest when the last AI message has no text (tool calls only)', async () => {
    const projectDir = await tempProject();
    const toolCall = new AIMessage({ content: '', tool_calls: [{ name: 'search', args: {}, id: 'call-1' }] });
    const graph = compiledGraph(new FakeStreamingChatModel({ responses: [toolCall] }), { projectDir });

    const state = await graph.invoke(ask, thread('tools'));

    expect(state.ingest).toMatchObject({ status: 'nothing_to_ingest', reason: 'no_text' });
    expect(await readdir(projectDir)).toEqual([]);
  });

  it('does not throw out of graph.invoke when the ingest fails: the summary says what to fix', async () => {
    const parent = await tempProject({ 'not-a-folder': 'a file' });
    const projectDir = path.join(parent, 'not-a-folder');
    const graph = compiledGraph(new FakeListChatModel({ responses: [ANSWER] }), { projectDir });

    const state = await graph.invoke(ask, thread('broken'));

    expect(state.ingest).toMatchObject({
      status: 'failed',
      run_id: 'broken',
      written: 0,
      manifest_path: '',
      files: [],
      problems: ['io_error'],
    });
    expect(state.ingest?.problem).toMatch(
      /^io_error: docs\/broken\/save\.md was not ingested: .*not-a-folder/,
    );
    expect(state.messages.at(-1)!.text).toBe(ANSWER);
    expect(await readFile(projectDir, 'utf8')).toBe('a file');
  });

  it('reports a document the confined writer refuses (docs/ a symlink out of the project), writing nothing', async () => {
    const outside = await tempProject();
    const projectDir = await tempProject();
    await symlink(outside, path.join(projectDir, 'docs'));
    const graph = compiledGraph(new FakeListChatModel({ responses: [ANSWER] }), { projectDir });

    const state = await graph.invoke(ask, thread('linked'));

    expect(state.ingest).toMatchObject({ status: 'failed', written: 0, problems: ['output_refused'] });
    expect(state.ingest?.problem).toMatch(
      /^output_refused: document docs\/linked\/save\.md was not written: /,
    );
    expect(await readdir(outside)).toEqual([]);
    expect(existsSync(path.join(projectDir, 'workspace'))).toBe(false);
  });

  it("throws IngestNodeError under failMode 'closed' when the ingest failed or rejected a block", async () => {
    const projectDir = await tempProject();
    const graph = compiledGraph(new FakeListChatModel({ responses: [ANSWER] }), {
      projectDir,
      failMode: 'closed',
      durability: 'none',
    });

    const failure = await graph.invoke(ask, thread('strict')).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(IngestNodeError);
    expect(failure).toMatchObject({
      code: 'ingest_failed',
      message: 'ingest of docs/strict/save.md failed: 1 block(s) rejected',
      summary: { written: 2, rejected: 1 },
    });
    // What was decided stays written: fail-closed reports, it does not undo.
    expect(existsSync(path.join(projectDir, 'workspace/src/app.ts'))).toBe(true);
  });

  it('streams the ingest node update after the model node update (streamMode updates)', async () => {
    const projectDir = await tempProject();
    const graph = compiledGraph(new FakeListChatModel({ responses: [ANSWER] }), {
      projectDir,
      durability: 'none',
    });

    const updates: Record<string, unknown>[] = [];
    for await (const chunk of await graph.stream(ask, { ...thread('stream'), streamMode: 'updates' })) {
      updates.push(chunk);
    }

    expect(updates.map((update) => Object.keys(update))).toEqual([['model'], ['save']]);
    expect(updates[1]).toEqual({
      save: { ingest: expect.objectContaining({ status: 'ingested', written: 2, rejected: 1 }) as unknown },
    });
    expect(existsSync(path.join(projectDir, 'workspace/src/app.ts'))).toBe(true);
  });
});

describe('ingestNode misuse', () => {
  it('needs a run id: runId, or the invocation thread_id', async () => {
    const projectDir = await tempProject();
    const graph = compiledGraph(new FakeListChatModel({ responses: [ANSWER] }), { projectDir });

    const failure = await graph.invoke(ask).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(IngestNodeError);
    expect(failure).toMatchObject({
      code: 'missing_run_id',
      message: expect.stringContaining(
        'pass ingestNode({ runId }), or invoke the graph with { configurable: { thread_id } }',
      ) as unknown,
    });
    expect(await readdir(projectDir)).toEqual([]);
  });

  it('refuses a thread_id that is not a valid run id, naming it', async () => {
    const projectDir = await tempProject();
    const graph = compiledGraph(new FakeListChatModel({ responses: [ANSWER] }), { projectDir });

    const failure = await graph.invoke(ask, thread('../up')).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(InvalidIdError);
    expect((failure as Error).message).toMatch(
      /^configurable\.thread_id \(the run id when ingestNode has no runId\) "\.\.\/up" must match/,
    );
    expect(await readdir(projectDir)).toEqual([]);
  });

  it.each([
    ['outside docs/', 'src/answer.md', /is not under docs\/ or audits\//],
    ['with a .. segment', 'docs/../x.md', /docPath/],
    [
      'under audits/',
      'audits/answer.md',
      /under audits\/, whose documents are not ingested; name a file under docs\//,
    ],
  ])('refuses a docPath %s when the node is made', (_, docPath, message) => {
    expect(() => ingestNode({ projectDir: '.', docPath })).toThrow(message);
    expect(() => ingestNode({ projectDir: '.', docPath })).toThrow(IngestNodeError);
  });

  it('refuses a bad runId or nodeId when the node is made', () => {
    expect(() => ingestNode({ projectDir: '.', runId: 'a b' })).toThrow(InvalidIdError);
    expect(() => ingestNode({ projectDir: '.', nodeId: '-x' })).toThrow(InvalidIdError);
  });
});
