import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AiSdkIngestOptions, IngestDone } from '../../src/ai-sdk/index.js';
import type { IngestStreamEvent } from '../../src/index.js';
import { ingestDocument } from '../../src/index.js';
import { tempProject } from './temp-project.js';
import { treeDigest } from './tree-digest.js';

/** The ids and document path the AI SDK adapter tests ingest under. */
export const ids = {
  runId: 'run-1',
  nodeId: 'answer',
  docPath: 'docs/answer.md',
  durability: 'none',
} as const;
export const fixedClock = (): Date => new Date('2026-11-28T12:00:00.000Z');
export const manifestFile = '.agent/runs/run-1/manifests/answer.json';

/** An adapter's options for `projectDir`, with the test ids and clock. */
export function adapterOptions(
  projectDir: string,
  extra: Partial<AiSdkIngestOptions> = {},
): AiSdkIngestOptions {
  return { projectDir, ...ids, now: fixedClock, ...extra };
}

/** What an ingest left in a project: the manifest but its timestamp, a digest of workspace/, the saved document. */
export interface LeftByIngest {
  readonly manifest: unknown;
  readonly workspace: string;
  readonly document: string;
}

export async function leftIn(projectDir: string): Promise<LeftByIngest> {
  const manifest = JSON.parse(await readFile(path.join(projectDir, manifestFile), 'utf8')) as Record<
    string,
    unknown
  >;
  delete manifest['ts'];
  return {
    manifest,
    workspace: await treeDigest(path.join(projectDir, 'workspace')),
    document: await readFile(path.join(projectDir, ids.docPath), 'utf8').catch(() => 'no document'),
  };
}

/** What a post-write `ingestDocument` of `text` leaves in a fresh project. */
export async function postWrite(text: string): Promise<LeftByIngest> {
  const projectDir = await tempProject({ [ids.docPath]: text });
  await ingestDocument({ projectDir, ...ids, now: fixedClock });
  return leftIn(projectDir);
}

/** The reason code of a manifest entry's `reason` (`code: message`, or '' for a plain write). */
export const codeOf = (reason: string): string => reason.split(':')[0]!;

/** A document.done's manifest entries as [declared_file, status, reason code]. */
export function entriesOf(
  done:
    | {
        readonly manifest: {
          readonly artifacts: readonly { declared_file: string; status: string; reason: string }[];
        };
      }
    | undefined,
): [string, string, string][] {
  return (done?.manifest.artifacts ?? []).map((artifact) => [
    artifact.declared_file,
    artifact.status,
    codeOf(artifact.reason),
  ]);
}

/** Callbacks for an adapter that keep each event it reports, and each document.done. */
export function collectEvents(): {
  events: IngestStreamEvent[];
  ended: IngestDone[];
  callbacks: { onEvent: (event: IngestStreamEvent) => void; onDone: (done: IngestDone) => void };
} {
  const events: IngestStreamEvent[] = [];
  const ended: IngestDone[] = [];
  return {
    events,
    ended,
    callbacks: {
      onEvent: (event) => {
        events.push(event);
      },
      onDone: (done) => {
        ended.push(done);
      },
    },
  };
}
