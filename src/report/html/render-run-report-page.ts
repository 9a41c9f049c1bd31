import { joinHtml, markup } from './escape-html.js';
import { formatDuration } from './format-figures.js';
import { renderFieldErrors } from './render-field-errors.js';
import { renderLeftOut } from './render-left-out.js';
import { renderDocuments } from './markdown/index.js';
import { renderPage } from './render-page.js';
import { renderStep } from './render-step.js';
import { renderTimeline } from './render-timeline.js';
import type { SafeHtml } from './escape-html.js';
import type { DocumentRenderOptions } from './markdown/index.js';
import type {
  ReportContract,
  ReportRunHeader,
  ReportStepStatus,
  ReportVerify,
  RunReport,
} from '../model/index.js';

const STATUSES: readonly ReportStepStatus[] = ['completed', 'failed', 'skipped', 'pending', 'running'];

/** How a run's page renders its agent documents: the time limits per document and per page. */
export type RunReportPageOptions = DocumentRenderOptions;

/**
 * Renders a run's report as one self-contained HTML page: no request of any kind, only its own style and script
 * run; agent documents render in a worker within time limits, and one that overruns is shown as text.
 */
export async function renderRunReportPage(
  report: RunReport,
  options: RunReportPageOptions = {},
): Promise<string> {
  const renderings = await renderDocuments(
    report.steps.map((step) => step.document?.markdown ?? null),
    4,
    options,
  );
  const main = markup`<section aria-labelledby="timeline-heading">
<h2 id="timeline-heading">Timeline</h2>
${renderTimeline(report.steps)}
</section>
<section aria-labelledby="steps-heading">
<h2 id="steps-heading">Steps</h2>
${renderControls(report)}
${
  report.steps.length === 0
    ? markup`<p>The run has no recorded steps.</p>`
    : joinHtml(
        report.steps.map((step, index) => renderStep(step, renderings[index] ?? null)),
        '\n',
      )
}
</section>
<section aria-labelledby="contracts-heading">
<h2 id="contracts-heading">Contracts</h2>
${renderContracts(report.contracts)}
</section>
${renderLinks(report)}
${renderLeftOut(report.limits, report.problems)}`;
  return renderPage({
    title: `Run ${report.run.runId} · artifact-ingest report`,
    header: renderHeader(report.run),
    main,
    footer: renderVerify(report.verify),
  });
}

function renderHeader(run: ReportRunHeader): SafeHtml {
  const inputs = Object.entries(run.inputs);
  const counts = STATUSES.filter((status) => run.counts[status] > 0).map(
    (status) => markup`<span class="badge s-${status}">${run.counts[status]} ${status}</span> `,
  );
  const { budgets, definition, terminal } = run;
  return markup`<h1>Run <code>${run.runId}</code> <span class="badge s-${statusClass(run.status)}">${run.status}</span></h1>
<dl class="facts">
<dt>Kind</dt><dd>${run.kind}</dd>
<dt>Definition</dt><dd>${
    definition === null
      ? '-'
      : markup`${definition.name} · sha256 <code>${definition.hash}</code>${
          definition.source === null ? null : markup` · ${definition.source}`
        }`
  }</dd>
<dt>Mode</dt><dd>${run.mode ?? '-'}</dd>
<dt>Terminal state</dt><dd id="terminal-state">${
    terminal === null
      ? 'none declared'
      : markup`<span class="badge s-${terminal.state}">${terminal.state}</span> ${terminal.reason}${
          terminal.artifact === null ? null : markup` · <code>${terminal.artifact}</code>`
        } · ${terminal.at}`
  }</dd>
<dt>Started</dt><dd>${run.startedAt ?? '-'}</dd>
<dt>Finished</dt><dd>${run.finishedAt ?? '-'}</dd>
<dt>Duration</dt><dd>${formatDuration(run.durationMs)}</dd>
<dt>Concurrency</dt><dd>${run.concurrency ?? '-'}</dd>
<dt>Ingest</dt><dd>${run.ingestEnabled === null ? '-' : run.ingestEnabled ? 'on' : 'off'}</dd>
<dt>Budgets</dt><dd>${
    budgets === null
      ? '-'
      : markup`${budgets.agentCalls} of ${budgets.maxAgentCalls ?? 'unlimited'} agent calls · ${
          budgets.minutes === null ? '-' : formatDuration(budgets.minutes * 60_000)
        } of ${budgets.maxMinutes === null ? 'unlimited' : `${budgets.maxMinutes} min`} time${
          budgets.maxFixAttempts === null ? null : markup` · at most ${budgets.maxFixAttempts} fix attempts`
        }${budgets.exceeded === null ? null : markup` · <strong>exceeded: ${budgets.exceeded}</strong>`}`
  }</dd>
<dt>Steps</dt><dd>${counts.length === 0 ? 'none' : counts}</dd>
${
  inputs.length === 0
    ? null
    : markup`<dt>Inputs</dt><dd>${joinHtml(
        inputs.map(([name, value]) => markup`<code>${name}</code> = ${value}`),
        '<br>',
      )}</dd>`
}
</dl>`;
}

function renderControls(report: RunReport): SafeHtml {
  if (report.steps.length === 0) return markup``;
  const present = STATUSES.filter((status) => report.steps.some((step) => step.status === status));
  // Hidden until the script runs: without it the controls would do nothing, and every step is shown anyway.
  return markup`<div class="controls" id="step-controls" hidden>
<label for="step-filter">Show steps</label>
<select id="step-filter"><option value="all">all</option>${joinHtml(
    present.map((status) => markup`<option value="${status}">${status}</option>`),
  )}<option value="rejected">with rejected blocks</option></select>
<button type="button" id="expand-all">Expand all</button>
<button type="button" id="collapse-all">Collapse all</button>
<span id="step-count" class="meta" aria-live="polite"></span>
</div>`;
}

/** The run's trace ids and its commits on `swarm/run-<run_id>` (docs/traces.md, docs/git.md). */
function renderLinks(report: RunReport): SafeHtml {
  const { links, run } = report;
  const live =
    links.liveTraceIds.length === 0
      ? null
      : markup`<dt>Live trace</dt><dd>${joinHtml(
          links.liveTraceIds.map((id) => markup`<code id="live-trace-id">${id}</code>`),
          ', ',
        )} <span class="meta">(spans recorded as the run ran, under the host's OpenTelemetry SDK)</span></dd>`;
  const commits =
    links.commits.length === 0
      ? markup`<p class="meta">Not exported to git here: <code>artifact-ingest export git ${run.runId}</code> writes it on <code>swarm/run-${run.runId}</code> (docs/git.md).</p>`
      : markup`<p>Branch <code>swarm/run-${run.runId}</code>, oldest first:</p>
<ol class="commits">${joinHtml(
          links.commits.map(
            (commit) =>
              markup`<li><code title="${commit.commit}">${commit.commit.slice(0, 12)}</code> ${
                commit.taskId === null
                  ? markup`<span class="meta">before the run</span>`
                  : markup`<code>${commit.taskId}</code>`
              } ${commit.subject}</li>`,
          ),
        )}</ol>`;
  return markup`<section aria-labelledby="links-heading">
<h2 id="links-heading">Trace and commits</h2>
<dl class="facts">
<dt>Trace id</dt><dd><code id="trace-id">${links.traceId}</code> <span class="meta">(what <code>export otlp ${run.runId}</code> and <code>run --otlp</code> send; search your backend for it)</span></dd>
${live}
</dl>
${commits}
</section>`;
}

function renderContracts(contracts: readonly ReportContract[]): SafeHtml {
  if (contracts.length === 0) return markup`<p>The run has no contract artifacts.</p>`;
  return joinHtml(contracts.map(renderContract), '\n');
}

function renderContract(contract: ReportContract): SafeHtml {
  const clean = contract.valid && contract.findings.length === 0;
  return markup`<details class="contract"${clean ? null : markup` open`}>
<summary><code>${contract.type}</code> <span class="badge s-${contract.valid ? 'ok' : 'bad'}">${
    contract.valid ? 'valid' : 'invalid'
  }</span> <span class="meta">${contract.path}</span></summary>
${renderFieldErrors(contract.errors)}
${
  contract.findings.length === 0
    ? markup`<p class="meta">Audit: came through the canonical path, unchanged.</p>`
    : markup`<ul>${joinHtml(
        contract.findings.map((finding) => markup`<li><code>${finding.code}</code>: ${finding.message}</li>`),
      )}</ul>`
}
${contract.payload === null ? markup`<p class="note">The payload could not be read.</p>` : markup`<pre tabindex="0">${contract.payload}</pre>`}
</details>`;
}

function renderVerify(verify: ReportVerify | null): SafeHtml {
  if (verify === null) {
    return markup`<h2 id="verify-heading">Verify</h2>
<p class="note">Not checked for this page: run 'artifact-ingest verify' for the verdict.</p>`;
  }
  const problems = verify.problems.map(
    (problem) =>
      markup`<li><span class="badge s-${problem.severity === 'error' ? 'bad' : 'pending'}">${problem.severity}</span> <code>${problem.code}</code>: ${problem.message}</li>`,
  );
  return markup`<h2 id="verify-heading">Verify</h2>
<p><span class="badge s-${verify.ok ? 'ok' : 'bad'}">${verify.ok ? 'verified' : 'verify failed'}</span> ${verify.errors} ${
    verify.errors === 1 ? 'error' : 'errors'
  }, ${verify.warnings} ${verify.warnings === 1 ? 'warning' : 'warnings'} · objects ${verify.objects.ok} of ${
    verify.objects.checked
  } ok · workspace files ${verify.workspaceFiles.ok} of ${verify.workspaceFiles.checked} ok</p>
${problems.length === 0 ? null : markup`<ul>${joinHtml(problems)}</ul>`}
<p class="meta">Made by artifact-ingest report from the run's records; read-only.</p>`;
}

// Run statuses map onto the badge colors of step statuses (`complete` is a finished workflow).
function statusClass(status: string): string {
  if (status === 'completed' || status === 'complete') return 'completed';
  if (status === 'failed' || status === 'aborted') return 'failed';
  return status === 'running' ? 'running' : 'pending';
}
