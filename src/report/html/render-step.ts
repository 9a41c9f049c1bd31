import { joinHtml, markup } from './escape-html.js';
import { formatBytes, formatDuration } from './format-figures.js';
import { renderDiff } from './render-diff.js';
import { renderFieldErrors } from './render-field-errors.js';
import type { SafeHtml } from './escape-html.js';
import type { DocumentRendering } from './markdown/index.js';
import type {
  ReportBlock,
  ReportDocument,
  ReportFile,
  ReportStep,
  ReportStepContract,
} from '../model/index.js';

/**
 * One step as a collapsible section, its document as `rendering` gives it (null: no text to render): failed
 * steps start open; the filter reads its status and rejected blocks.
 */
export function renderStep(step: ReportStep, rendering: DocumentRendering | null): SafeHtml {
  const rejectedCount = step.blocks.filter((block) => block.status === 'rejected').length;
  const summary = [
    step.kind,
    step.agent === null ? 'no agent' : `agent ${step.agent}`,
    // A step that never started has no duration or lane worth a word.
    ...(step.startedAt === null
      ? ['not started']
      : [formatDuration(step.durationMs), `lane ${step.lane + 1}`]),
    count(step.blocks.length + (step.blocksOmitted ?? 0), 'block', 'blocks'),
    ...(rejectedCount > 0 ? [`${rejectedCount} rejected`] : []),
    count(step.files.length + (step.filesOmitted ?? 0), 'file', 'files'),
  ].join(' · ');
  return markup`<details class="step" id="step-${step.key}" data-status="${step.status}" data-rejected="${String(rejectedCount > 0)}"${
    step.status === 'failed' ? markup` open` : null
  }>
<summary><h3>${step.key}</h3> <span class="badge s-${step.status}">${step.status}</span> <span class="meta">${summary}</span></summary>
<dl class="facts">
<dt>Id</dt><dd>${step.id} (${step.kind}, attempt ${step.attempt})</dd>
<dt>Agent</dt><dd>${step.agent ?? '-'}</dd>
<dt>Prompt hash</dt><dd><code>${step.promptSha256 ?? '-'}</code></dd>
<dt>Started</dt><dd>${step.startedAt ?? '-'}</dd>
<dt>Finished</dt><dd>${step.finishedAt ?? '-'}</dd>
<dt>Duration</dt><dd>${formatDuration(step.durationMs)}</dd>
${step.error === null ? null : markup`<dt>Error</dt><dd class="s-bad"><code>${step.error.code}</code>: ${step.error.message}</dd>`}
</dl>
${step.document === null ? null : renderDocument(step.document, rendering)}
${step.blocks.length === 0 ? null : renderBlocks(step.key, step.blocks)}
${omittedNote(step.blocksOmitted, 'more blocks of this document are counted, not listed')}
${step.files.length === 0 ? null : renderFiles(step.files)}
${omittedNote(step.filesOmitted, 'more file versions of this step are counted, not listed')}
${step.contract === null ? null : renderStepContract(step.contract)}
${step.reconciliation === null ? null : renderReconciliation(step.reconciliation)}
</details>`;
}

function count(total: number, one: string, many: string): string {
  return `${total} ${total === 1 ? one : many}`;
}

// Past the report's listing caps a step's rows are only counted; `replay` lists them all.
function omittedNote(omitted: number | undefined, text: string): SafeHtml | null {
  return omitted === undefined || omitted === 0 ? null : markup`<p class="note">${omitted} ${text}.</p>`;
}

function renderDocument(document: ReportDocument, rendering: DocumentRendering | null): SafeHtml {
  const body =
    document.markdown === null
      ? markup`<p class="note">The document's text is not in the report: ${document.unavailable ?? 'unavailable'}.</p>`
      : markup`${renderBody(document.markdown, rendering)}${
          document.truncated ? markup`<p class="note">The document is cut at the report's limit.</p>` : null
        }`;
  return markup`<h4>Document <code>${document.path}</code></h4>
<p class="meta">${formatBytes(document.bytes)} · sha256 <code>${document.sha256}</code></p>
<details class="document"><summary>Rendered document</summary>${body}</details>`;
}

function renderBody(markdown: string, rendering: DocumentRendering | null): SafeHtml {
  if (rendering?.kind === 'html') return markup`<div class="doc">${rendering.html}</div>`;
  // Escaped by markup: the text is shown as the agent wrote it, inert.
  return markup`<p class="note">${rendering?.note ?? 'Not rendered; shown as text.'}</p><pre tabindex="0" class="doc-text">${markdown}</pre>`;
}

function renderBlocks(key: string, blocks: readonly ReportBlock[]): SafeHtml {
  const rows = blocks.map(
    (block) =>
      markup`<tr class="block"><td>${block.index}</td><td><span class="badge s-${block.status}">${block.status}</span></td><td><code>${block.declaredFile}</code>${
        // Shown only when it says more than the declared path inside workspace/ (a normalized path).
        block.workspacePath === '' || block.workspacePath === `workspace/${block.declaredFile}`
          ? null
          : markup`<br><span class="meta">${block.workspacePath}</span>`
      }</td><td>${block.lang}</td><td>${block.bytes}</td><td>${
        block.code === '' ? null : markup`<code>${block.code}</code> `
      }${reasonText(block)}</td></tr>`,
  );
  return markup`<h4>Blocks</h4>
<table><caption class="meta">Fenced blocks of ${key}'s document, as the ingest judged them</caption>
<thead><tr><th scope="col">#</th><th scope="col">Status</th><th scope="col">Declared file</th><th scope="col">Lang</th><th scope="col">Bytes</th><th scope="col">Reason</th></tr></thead>
<tbody>${joinHtml(rows)}</tbody></table>`;
}

// The manifest's reason line starts with its code, which the cell already shows.
function reasonText(block: ReportBlock): string {
  const prefix = `${block.code}: `;
  return block.code !== '' && block.reason.startsWith(prefix)
    ? block.reason.slice(prefix.length)
    : block.reason;
}

function renderFiles(files: readonly ReportFile[]): SafeHtml {
  const items = files.map(
    (
      file,
    ) => markup`<details class="file"><summary><code>${file.path}</code> ${file.change} <span class="meta">+${file.linesAdded} −${file.linesRemoved} · ${formatBytes(file.bytes)}</span></summary>
<p class="meta">artifact <code>${file.artifactId}</code>${
      file.previous === null ? null : markup` · previous <code>${file.previous}</code>`
    } · content <code>${file.contentHash}</code></p>
${renderDiff(file.diff)}</details>`,
  );
  return markup`<h4>Files</h4>${joinHtml(items)}`;
}

function renderStepContract(contract: ReportStepContract): SafeHtml {
  return markup`<h4>Contract <code>${contract.type}</code></h4>
<p><span class="badge s-${contract.state}">${contract.state}</span> after ${contract.attempts} ${
    contract.attempts === 1 ? 'attempt' : 'attempts'
  }${contract.artifact === null ? null : markup` · <code>${contract.artifact}</code>`}${
    contract.reason === null ? null : markup` · ${contract.reason}`
  }</p>
${renderFieldErrors(contract.errors)}`;
}

function renderReconciliation(reconciliation: NonNullable<ReportStep['reconciliation']>): SafeHtml {
  const list = (paths: readonly string[]): SafeHtml =>
    markup`<ul>${joinHtml(paths.map((path) => markup`<li><code>${path}</code></li>`))}</ul>`;
  if (reconciliation.unregistered.length === 0 && reconciliation.phantom.length === 0)
    return markup`<h4>Declared versus observed</h4><p>The files the step registered are the files it changed.</p>`;
  return markup`<h4>Declared versus observed</h4>
${reconciliation.unregistered.length === 0 ? null : markup`<p>Changed but not registered:</p>${list(reconciliation.unregistered)}`}
${reconciliation.phantom.length === 0 ? null : markup`<p>Registered but not changed:</p>${list(reconciliation.phantom)}`}`;
}
