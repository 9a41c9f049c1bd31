import * as z from 'zod';
import { checkDeclaredPath } from '../../workspace/index.js';
import type { ContractType } from './contract-type.js';

/** Conventional Commits types a `commit_message` may use (those of @commitlint/config-conventional). */
export const COMMIT_TYPES = [
  'feat',
  'fix',
  'docs',
  'style',
  'refactor',
  'perf',
  'test',
  'build',
  'ci',
  'chore',
  'revert',
] as const;

/** Longest `commit_message.subject`, in characters (the usual limit of a commit's first line). */
export const MAX_SUBJECT_LENGTH = 72;

// Text a reviewer reads: at least one character that is not white space.
const text = z.string().regex(/\S/, { error: 'non-empty text' });

/**
 * The part of the ingest's path rules a JSON Schema `pattern` can say: not empty, not absolute, no `..` segment,
 * no backslash, no `:` (so no drive letter), no control character; zod itself judges with `checkDeclaredPath`.
 */
export const PROJECT_PATH_PATTERN =
  '^(?![/\\\\])(?!(?:[^/]*/)*\\.\\.(?:/|$))[^\\\\:\\u0000-\\u001F\\u007F]+$';

// Paths inside payloads follow the ingest's path rules: project-relative, no "..", no absolute or drive paths.
const projectPath = z
  .string()
  .superRefine((value, context) => {
    const verdict = checkDeclaredPath(value);
    if (!verdict.ok) {
      context.addIssue({
        code: 'custom',
        message: `a project-relative path (${verdict.code}: ${verdict.message.replace(/^file= path/, 'the path')})`,
        input: value,
      });
    }
  })
  // The refinement is invisible to z.toJSONSchema: say in the published schema what a pattern can say.
  .meta({
    description:
      "A project-relative path by the ingest's path rules (docs/security.md): '/' between directories, no '..' segment, not absolute, no drive letter, no backslash or ':', not inside .git, no Windows-reserved name.",
    pattern: PROJECT_PATH_PATTERN,
  });

const changedFile = z.strictObject({
  path: projectPath,
  change: z.enum(['added', 'modified', 'deleted']),
});

const checkRun = z.strictObject({
  command: text,
  result: z.enum(['passed', 'failed', 'skipped']),
});

const developmentShape = {
  outcome: z.enum(['completed', 'partial', 'failed']),
  summary: text,
  changed_files: z.array(changedFile),
  checks_run: z.array(checkRun),
  reviewer_focus: z.array(text),
};

const issue = z.strictObject({
  id: text,
  severity: z.enum(['blocker', 'major', 'minor', 'nit']),
  title: text,
  description: text,
  path: projectPath.optional(),
  line: z.number().int().positive({ error: 'a line number of 1 or more' }).optional(),
});

const analysisDecision = z.strictObject({
  section: text,
  decision: z.enum(['accept', 'revise', 'reject']),
  rationale: text,
  follow_ups: z.array(text).optional(),
});

// Regexes, not refinements, so that z.toJSONSchema publishes each rule as a pattern (an allOf of them).
const subject = text
  .max(MAX_SUBJECT_LENGTH, { error: `a subject of at most ${String(MAX_SUBJECT_LENGTH)} characters` })
  .regex(/[^.]$/, { error: 'a subject without a trailing period' })
  .regex(/^[^\r\n]*$/, { error: 'a one-line subject (put the details in body)' })
  .meta({
    description: 'The first line of the commit after `type(scope): `, in the imperative.',
  });

/** The zod schema of each contract type; unknown keys are errors everywhere. */
export const ARTIFACT_SCHEMAS = {
  product_spec: z
    .strictObject({
      title: text,
      goals: z.array(text),
      requirements: z
        .array(z.strictObject({ id: text, text }))
        .superRefine(uniqueIds('a requirement'))
        .meta({ description: 'Each requirement id is used once.' }),
      acceptance: z.array(text),
    })
    .meta({
      description: 'What to build: the goals, the numbered requirements and how to accept the result.',
    }),
  planning_analysis_decision: analysisDecision.meta({
    description: 'The analysis of a plan: accept it, send it back for revision, or reject it.',
  }),
  development_result: z.strictObject(developmentShape).meta({
    description: 'What a development phase did: its outcome, the files it changed and the checks it ran.',
  }),
  development_analysis_decision: analysisDecision.meta({
    description: 'The analysis of a development result: accept it, ask for a revision, or reject it.',
  }),
  issues: z
    .strictObject({
      issues: z
        .array(issue)
        .superRefine(uniqueIds('an issue'))
        .meta({ description: 'Each issue id is used once; an empty list means the review found nothing.' }),
    })
    .meta({ description: 'What a review found, one entry per issue, each with a severity.' }),
  review_analysis_decision: analysisDecision.meta({
    description: 'The analysis of a review: accept its findings, ask for a revision, or reject the work.',
  }),
  fix_result: z
    .strictObject({
      ...developmentShape,
      fixes: z.array(text).meta({ description: 'The ids of the issues this fix addresses.' }),
    })
    .meta({ description: 'What a fix cycle did: a development result plus the ids of the issues it fixes.' }),
  smoke_test_result: z
    .strictObject({
      commands: z.array(z.strictObject({ command: text, exit_code: z.number().int(), passed: z.boolean() })),
      passed: z.number().int().nonnegative({ error: 'a count of 0 or more' }),
      failed: z.number().int().nonnegative({ error: 'a count of 0 or more' }),
      summary: text,
    })
    .meta({ description: 'The smoke tests a run ran: each command with its exit code, and the counts.' }),
  commit_message: z
    .strictObject({
      type: z.enum(COMMIT_TYPES),
      scope: z
        .string()
        // What goes between the parentheses of type(scope): one word, no space and no parenthesis.
        .regex(/^[^\s()]+$/, {
          error: 'one word such as cli or fence (no space, no parenthesis)',
        })
        .meta({ description: 'The area the commit changes, one word such as cli or fence.' })
        .optional(),
      subject,
      body: z.string().optional(),
      breaking: z.boolean(),
      footers: z
        .array(
          z.strictObject({
            token: z
              .string()
              .regex(/^(?:BREAKING CHANGE|[A-Za-z][A-Za-z0-9-]*)$/, {
                error: 'a footer token such as Refs, Reviewed-by or BREAKING CHANGE',
              })
              .meta({ description: 'A git trailer token such as Refs, Reviewed-by or BREAKING CHANGE.' }),
            value: text,
          }),
        )
        .optional(),
    })
    .meta({
      description: 'The Conventional Commits message of the work: type, scope, subject, body, footers.',
    }),
  commit_cleanup: z
    .strictObject({
      actions: z.array(
        z.strictObject({
          action: z.enum(['delete', 'gitignore', 'git_exclude']),
          path: projectPath,
          reason: text,
        }),
      ),
    })
    .meta({ description: 'Files to remove or ignore before the commit, each with the reason.' }),
} as const satisfies Record<ContractType, z.ZodType>;

/** The payload type of each contract type. */
export type ArtifactPayload<T extends ContractType = ContractType> = z.infer<(typeof ARTIFACT_SCHEMAS)[T]>;

/** The zod schema of one contract type. */
export function artifactSchemaOf(type: ContractType): z.ZodType {
  return ARTIFACT_SCHEMAS[type];
}

// `what` with its article: 'an issue', 'a requirement'.
function uniqueIds(what: string) {
  return (items: readonly { readonly id: string }[], context: z.RefinementCtx): void => {
    const seen = new Map<string, number>();
    items.forEach((item, index) => {
      const first = seen.get(item.id);
      if (first === undefined) {
        seen.set(item.id, index);
        return;
      }
      context.addIssue({
        code: 'custom',
        path: [index, 'id'],
        message: `${what} id not used before (${JSON.stringify(item.id)} is already the id of item ${String(first)})`,
        input: item.id,
      });
    });
  };
}
