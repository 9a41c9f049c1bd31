import { CodedError } from '../project/index.js';
/** One problem with the configuration, located in the config file when it came from there. */
export interface ConfigIssue {
  /** Dotted path of the setting, such as `ingest.fail_mode`, or the environment variable's name. */
  readonly path: string;
  /** What is wrong and what to write instead. */
  readonly message: string;
  /** 1-based line in the config file. */
  readonly line?: number;
  /** 1-based column in the config file. */
  readonly column?: number;
}

/** Bad configuration (config file, environment or flags), listing every issue at once; the CLI exits 2 on it. */
export class ConfigError extends CodedError<'invalid_config'> {
  override readonly name = 'ConfigError';
  /** Where the configuration came from: the config file's path, or `environment`. */
  readonly source: string;
  readonly issues: readonly ConfigIssue[];

  constructor(source: string, issues: readonly ConfigIssue[]) {
    super('invalid_config', formatIssues(source, issues));
    this.source = source;
    this.issues = Object.freeze([...issues]);
  }
}

function formatIssues(source: string, issues: readonly ConfigIssue[]): string {
  const count = issues.length === 1 ? '1 problem' : `${String(issues.length)} problems`;
  const lines = issues.map((issue) => {
    const where =
      issue.line === undefined ? source : `${source}:${String(issue.line)}:${String(issue.column ?? 1)}`;
    const what = issue.path === '' ? '' : `${issue.path}: `;
    return `  ${where}: ${what}${issue.message}`;
  });
  return [`invalid configuration (${count}):`, ...lines].join('\n');
}
