import * as z from 'zod';
import { describeValue } from './describe-value.js';
import type { AllowedKeys } from './parse-yaml-with-schema.js';
import { isCredentialKey, remoteCredentialIssues } from './remote-credentials.js';
import type { RemoteChecksums, RemoteS3Settings, RemoteSettings } from './remote-settings.js';
import {
  catalogProblems,
  readRemoteObjects,
  REMOTE_EXAMPLES,
  remoteProjectProblems,
  s3EndpointProblems,
  s3RegionProblems,
} from './remote-values.js';
import { withRules } from './with-rules.js';

/** The values of `remote.s3.checksums`. */
export const REMOTE_CHECKSUMS = [
  'when_required',
  'when_supported',
] as const satisfies readonly RemoteChecksums[];

// What the remote's settings got, named without the value: a text here may be a URL with a password in it.
function describeShape(value: unknown): string {
  return typeof value === 'string' ? 'text' : describeValue(value);
}

/** A text setting; `example` shows how to write it, and no message shows the value itself. */
function remoteText(example: string) {
  return z.string({
    error: (issue) =>
      issue.input === undefined
        ? `missing; add ${example}`
        : `expected text, got ${describeShape(issue.input)}; write it as ${example}`,
  });
}

/** A text setting checked by a rule that words what is wrong with it (nothing: it is right). */
function checkedText(example: string, problemsOf: (value: string) => readonly string[]) {
  return remoteText(example).superRefine((value, context) => {
    for (const message of problemsOf(value)) context.addIssue({ code: 'custom', message });
  });
}

/**
 * A mapping of `shape`'s keys that may also be left empty. Unknown keys are refused as in every other mapping,
 * but kept in the value (a loose object) so that the credential rule sees every key that was written; a
 * credential key is left to that rule, whose message says where the credential goes instead.
 */
function mapping<S extends z.core.$ZodLooseShape>(key: string, shape: S) {
  const keys = Object.keys(shape);
  return z
    .looseObject(shape, {
      error: (issue) =>
        issue.code === 'invalid_type'
          ? `expected a mapping of ${keys.join(', ')}, got ${describeShape(issue.input)}; indent those keys under "${key}:"`
          : undefined,
    })
    .superRefine(
      (value: unknown, context) => {
        // Runs even when the value is no mapping at all, which the type issue already reports.
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
        const unknown = Object.keys(value).filter(
          (name) => !Object.hasOwn(shape, name) && !isCredentialKey(name),
        );
        if (unknown.length > 0)
          context.addIssue({
            code: 'unrecognized_keys',
            keys: unknown,
            input: value as Record<string, unknown>,
          });
      },
      { when: () => true },
    )
    .nullish();
}

const s3Shape = {
  endpoint: checkedText(`endpoint: ${REMOTE_EXAMPLES.endpoint}`, s3EndpointProblems).optional(),
  region: checkedText(`region: ${REMOTE_EXAMPLES.region}`, s3RegionProblems).optional(),
  force_path_style: z
    .boolean({
      error: (issue) =>
        `expected true or false, got ${describeValue(issue.input)}; write "force_path_style: true" (http://host/bucket/key, as most S3-compatible servers want) or "force_path_style: false"`,
    })
    .optional(),
  checksums: z
    .enum(REMOTE_CHECKSUMS, {
      error: (issue) =>
        `expected one of ${REMOTE_CHECKSUMS.join(', ')}, got ${describeValue(issue.input)}; write "checksums: when_required" (for servers that reject the AWS SDK's CRC32 checksums) or "checksums: when_supported"`,
    })
    .optional(),
};

const s3Section = mapping('s3', s3Shape);

const remoteShape = {
  project: checkedText(`project: ${REMOTE_EXAMPLES.project}`, remoteProjectProblems),
  catalog: checkedText(`catalog: ${REMOTE_EXAMPLES.catalog}`, (catalog) => catalogProblems(catalog, 'file')),
  objects: remoteText(`objects: ${REMOTE_EXAMPLES.objects}`).transform((objects, context) => {
    const reading = readRemoteObjects(objects);
    if (reading.ok) return reading.objects;
    for (const message of reading.problems) context.addIssue({ code: 'custom', message });
    return z.NEVER;
  }),
  s3: s3Section,
};

/**
 * The `remote:` section: `project`, `catalog` and `objects` required, `s3:` optional; left empty or out, no
 * remote. A credential written anywhere in it is refused, naming the environment variable it belongs in.
 */
export const remoteSectionSchema = withRules(mapping('remote', remoteShape), remoteCredentialIssues);

/** The keys allowed under `remote` and `remote.s3`, by dotted path. */
export const REMOTE_CONFIG_KEYS: Readonly<Record<string, AllowedKeys>> = Object.freeze({
  remote: Object.keys(remoteShape),
  'remote.s3': Object.keys(s3Shape),
});

/** The `remote.s3:` settings with defaults filled in (all defaults when the section is left out). */
export function toRemoteS3Settings(s3?: z.infer<typeof s3Section>): RemoteS3Settings {
  const endpoint = s3?.endpoint;
  return {
    endpoint,
    region: s3?.region,
    forcePathStyle: s3?.force_path_style ?? false,
    // S3-compatible servers (an endpoint) may reject the CRC32 checksums the AWS SDK sends by default.
    checksums: s3?.checksums ?? (endpoint === undefined ? 'when_supported' : 'when_required'),
  };
}

/** The `remote:` section as `RemoteSettings`, or undefined when it is left empty or out. */
export function toRemoteSettings(remote: z.infer<typeof remoteSectionSchema>): RemoteSettings | undefined {
  if (remote === undefined || remote === null) return undefined;
  return {
    project: remote.project,
    catalog: remote.catalog,
    objects: remote.objects,
    s3: toRemoteS3Settings(remote.s3),
  };
}
