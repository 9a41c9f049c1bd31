import type { ArtifactPayload } from '../types/index.js';
import type { ContractType } from '../types/index.js';

/** What a type's reducer makes of a valid artifact: the pipeline advances, or it does not and why. */
export type Reduction =
  | { readonly advance: true }
  | { readonly advance: false; readonly verdict: 'fix_needed' | 'blocked'; readonly reason: string };

const ADVANCE: Reduction = { advance: true };

/**
 * The reducer of each type (spec contracts.md, "Completion detection"): results advance on `outcome:
 * completed` (`partial` needs a fix, `failed` blocks), `issues` unless one is a blocker, `smoke_test_result`
 * when nothing failed, decisions unless `reject`; the other types always advance.
 */
export function reduceArtifact<T extends ContractType>(type: T, payload: ArtifactPayload<T>): Reduction {
  const artifact = { type, payload } as TypedArtifact;
  switch (artifact.type) {
    case 'development_result':
    case 'fix_result': {
      const { outcome, summary } = artifact.payload;
      if (outcome === 'completed') return ADVANCE;
      if (outcome === 'partial') {
        return {
          advance: false,
          verdict: 'fix_needed',
          reason: `${artifact.type} says outcome: partial (${clip(summary)}); finish the work and submit outcome: completed`,
        };
      }
      return {
        advance: false,
        verdict: 'blocked',
        reason: `${artifact.type} says outcome: failed: ${clip(summary)}`,
      };
    }
    case 'issues': {
      const blockers = artifact.payload.issues.filter((issue) => issue.severity === 'blocker');
      if (blockers.length === 0) return ADVANCE;
      const listed = blockers.map((issue) => `${issue.id}: ${clip(issue.title)}`).join('; ');
      return {
        advance: false,
        verdict: 'blocked',
        reason: `${String(blockers.length)} blocker issue${blockers.length === 1 ? '' : 's'}: ${listed}`,
      };
    }
    case 'smoke_test_result': {
      const { failed, commands } = artifact.payload;
      if (failed === 0) return ADVANCE;
      const failing = commands.filter((command) => !command.passed).map((command) => clip(command.command));
      return {
        advance: false,
        verdict: 'blocked',
        reason: `${String(failed)} smoke test${failed === 1 ? '' : 's'} failed${failing.length === 0 ? '' : `: ${failing.join('; ')}`}`,
      };
    }
    case 'planning_analysis_decision':
    case 'review_analysis_decision':
    case 'development_analysis_decision': {
      const { decision, section, rationale } = artifact.payload;
      if (decision !== 'reject') return ADVANCE;
      return {
        advance: false,
        verdict: 'blocked',
        reason: `${artifact.type} rejects ${clip(section)}: ${clip(rationale)}`,
      };
    }
    case 'product_spec':
    case 'commit_message':
    case 'commit_cleanup':
      return ADVANCE;
  }
}

type TypedArtifact = {
  [K in ContractType]: { readonly type: K; readonly payload: ArtifactPayload<K> };
}[ContractType];

/** Agent text quoted in a reason, bounded so a long summary cannot bloat a terminal state. */
function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}
