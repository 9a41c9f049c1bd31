import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type * as api from '../src/index.js';

// The public API is pinned (docs/api.md, D96): the built package's export names must equal the committed list in
// test/public-api.json, so adding, renaming or dropping an export fails here until the list (and api.md) says so.

const distIndex = (file: string): string => fileURLToPath(new URL(`../dist/${file}`, import.meta.url));
const committedFile = fileURLToPath(new URL('public-api.json', import.meta.url));

interface PublicApi {
  readonly values: readonly string[];
  readonly types: readonly string[];
}

let committed: PublicApi;

beforeAll(async () => {
  if (!existsSync(distIndex('index.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  committed = JSON.parse(await readFile(committedFile, 'utf8')) as PublicApi;
});

/** The runtime export names of `dist/index.js` as Node itself imports it, in a child (not vitest's module runner). */
async function valueExportsOfBuild(): Promise<string[]> {
  const url = pathToFileURL(distIndex('index.js')).href;
  const script = `const api = await import(${JSON.stringify(url)});\nprocess.stdout.write(JSON.stringify(Object.keys(api)));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  return (JSON.parse(stdout) as string[]).sort();
}

/** The names `dist/index.d.ts` re-exports as types only (`export type { ... } from`), read by TypeScript's parser. */
async function typeExportsOfBuild(): Promise<string[]> {
  const text = await readFile(distIndex('index.d.ts'), 'utf8');
  const source = ts.createSourceFile('index.d.ts', text, ts.ScriptTarget.Latest);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    if (clause === undefined || !ts.isNamedExports(clause))
      throw new Error('index.d.ts has an export * statement');
    for (const element of clause.elements)
      if (statement.isTypeOnly || element.isTypeOnly) names.push(element.name.text);
  }
  return names.sort();
}

describe('the public API of the built package', () => {
  it('exports exactly the committed runtime names', async () => {
    expect(await valueExportsOfBuild()).toEqual(committed.values);
  });

  it('exports exactly the committed types', async () => {
    expect(await typeExportsOfBuild()).toEqual(committed.types);
  });

  it('documents every export in docs/api.md', async () => {
    const page = await readFile(fileURLToPath(new URL('../docs/api.md', import.meta.url)), 'utf8');
    const named = new Set(page.match(/[A-Za-z_][A-Za-z0-9_]*/g));
    const undocumented = [...committed.values, ...committed.types].filter((name) => !named.has(name));
    expect(undocumented).toEqual([]);
  });

  // Type-level: `npm run typecheck` fails when a documented option or result type no longer fits its call.
  it('types the workflow engine and the server factory with their exported option and result types', () => {
    type Engine = api.WorkflowEngineDeps;
    expectTypeOf<typeof api.startWorkflow>().parameter(1).toEqualTypeOf<api.StartWorkflowRequest>();
    expectTypeOf<typeof api.startWorkflow>().parameter(2).toEqualTypeOf<Engine | undefined>();
    expectTypeOf<ReturnType<typeof api.startWorkflow>>().resolves.toEqualTypeOf<api.WorkflowStatusResponse>();
    expectTypeOf<typeof api.advanceWorkflow>().parameter(1).toEqualTypeOf<api.AdvanceWorkflowRequest>();
    expectTypeOf<typeof api.advanceWorkflow>().parameter(2).toEqualTypeOf<Engine | undefined>();
    expectTypeOf<
      ReturnType<typeof api.advanceWorkflow>
    >().resolves.toEqualTypeOf<api.AdvanceWorkflowResult>();
    expectTypeOf<Parameters<typeof api.workflowStatus>[1]>().toEqualTypeOf<
      api.WorkflowStatusRequest | undefined
    >();
    expectTypeOf<Parameters<typeof api.abortWorkflow>[1]>().toEqualTypeOf<
      api.AbortWorkflowRequest | undefined
    >();
    expectTypeOf<
      Parameters<typeof api.registerWorkflowArtefacts>[1]
    >().toEqualTypeOf<api.RegisterWorkflowArtefactsRequest>();
    expectTypeOf<
      ReturnType<typeof api.registerWorkflowArtefacts>
    >().resolves.toEqualTypeOf<api.RegisterWorkflowArtefactsResult>();
    // Every call takes the same deps object (each reads the part it needs).
    expectTypeOf<Engine>().toExtend<NonNullable<Parameters<typeof api.workflowStatus>[2]>>();
    expectTypeOf<Engine>().toExtend<NonNullable<Parameters<typeof api.abortWorkflow>[2]>>();
    expectTypeOf<Engine>().toExtend<NonNullable<Parameters<typeof api.registerWorkflowArtefacts>[2]>>();
    expectTypeOf<ReturnType<typeof api.listWorkflows>>().resolves.toEqualTypeOf<api.WorkflowListing>();
    expectTypeOf<
      Parameters<typeof api.createWorkflowMcpServer>[0]
    >().toEqualTypeOf<api.WorkflowMcpServerOptions>();
    expectTypeOf<ConstructorParameters<typeof api.BoundedStdioTransport>[0]>().toEqualTypeOf<
      api.BoundedStdioTransportOptions | undefined
    >();
    expectTypeOf<api.WorkflowReferenceError>().toExtend<api.ConfigError>();
    expectTypeOf<api.WorkflowError['code']>().toEqualTypeOf<api.WorkflowErrorCode>();
    expectTypeOf<ReturnType<typeof api.workflowErrorCodeOf>>().toEqualTypeOf<
      api.WorkflowEngineErrorCode | undefined
    >();
  });
});
