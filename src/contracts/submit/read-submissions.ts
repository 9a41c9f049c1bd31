import { readArtifactRecords } from '../../artifacts/index.js';
import type { ArtifactRecord } from '../../artifacts/index.js';
import type { RunId } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import { isContractType } from '../types/index.js';
import type { ContractType } from '../types/index.js';

/** One canonical submission of a run, as its artifact record says. */
export interface RecordedSubmission {
  readonly type: ContractType;
  readonly record: ArtifactRecord;
}

/** The run's canonical submissions (records with `source: submit`), oldest first. */
export async function readSubmissions(projectDir: ProjectRef, runId: RunId): Promise<RecordedSubmission[]> {
  const { records } = await readArtifactRecords(projectDir, runId);
  const submissions: RecordedSubmission[] = [];
  for (const record of records) {
    const type = record.metadata.contract;
    if (record.metadata.source === 'submit' && isContractType(type)) submissions.push({ type, record });
  }
  return submissions;
}

/**
 * The payload of the latest submission of `type` in a run, read from the object store (not from the file in
 * `.agent/artifacts/`, which anyone could have edited); undefined when the run submitted none or it is unreadable.
 */
export async function readLatestPayload(
  projectDir: ProjectRef,
  runId: RunId,
  type: ContractType,
): Promise<{ readonly record: ArtifactRecord; readonly payload: unknown } | undefined> {
  const latest = (await readSubmissions(projectDir, runId))
    .filter((submission) => submission.type === type)
    .at(-1);
  if (latest === undefined) return undefined;
  return usingProject(projectDir, async ({ store }) => {
    // Read only: a project without objects is given no folder, and its payload is unreadable.
    const objects = await store.openObjects({ readOnly: true });
    try {
      const bytes = await objects.get(latest.record.contentHash);
      return { record: latest.record, payload: JSON.parse(new TextDecoder().decode(bytes)) as unknown };
    } catch {
      return undefined;
    } finally {
      await objects.close();
    }
  });
}
