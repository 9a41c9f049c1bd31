import { joinHtml, markup } from './escape-html.js';
import { formatBytes } from './format-figures.js';
import { renderDiff } from './render-diff.js';
import { renderLeftOut } from './render-left-out.js';
import { renderPage } from './render-page.js';
import type { SafeHtml } from './escape-html.js';
import type { PathReport, PathReportVersion } from '../model/index.js';

/** Renders the lineage of one path across runs as one self-contained HTML page, oldest version first. */
export function renderPathReportPage(report: PathReport): string {
  const runs = new Set(report.versions.map((version) => version.runId)).size;
  const rows = report.versions.map(
    (version, index) =>
      markup`<tr><td>${index + 1}</td><td><code>${version.artifactId}</code></td><td><code>${version.runId}</code></td><td>${version.taskId}</td><td>${version.agentId}</td><td>${version.createdAt}</td><td>+${version.linesAdded} −${version.linesRemoved}</td><td>${formatBytes(version.bytes)}</td></tr>`,
  );
  const main = markup`<section aria-labelledby="versions-heading">
<h2 id="versions-heading">Versions</h2>
${
  report.versions.length === 0
    ? markup`<p>No run recorded a version of this path.</p>`
    : markup`<table><caption class="meta">Every recorded version, oldest first</caption>
<thead><tr><th scope="col">#</th><th scope="col">Artifact</th><th scope="col">Run</th><th scope="col">Task</th><th scope="col">Agent</th><th scope="col">Created</th><th scope="col">Lines</th><th scope="col">Size</th></tr></thead>
<tbody>${joinHtml(rows)}</tbody></table>`
}
</section>
<section aria-labelledby="diffs-heading">
<h2 id="diffs-heading">Diffs</h2>
<div class="controls" id="step-controls" hidden><button type="button" id="expand-all">Expand all</button> <button type="button" id="collapse-all">Collapse all</button></div>
${joinHtml(report.versions.map(renderVersion), '\n')}
</section>
${renderLeftOut(report.limits, report.problems)}`;
  return renderPage({
    title: `Path ${report.path} · artifact-ingest report`,
    header: markup`<h1>Path <code>${report.path}</code></h1>
<p class="meta">${report.versions.length} ${report.versions.length === 1 ? 'version' : 'versions'} across ${runs} ${
      runs === 1 ? 'run' : 'runs'
    }</p>`,
    main,
    footer: markup`<p class="meta">Made by artifact-ingest report from the project's records; read-only.</p>`,
  });
}

function renderVersion(version: PathReportVersion, index: number): SafeHtml {
  return markup`<details class="version"><summary><h3>Version ${index + 1}</h3> <span class="meta">run <code>${version.runId}</code> · ${version.taskId} · ${version.agentId} · ${version.createdAt}</span></summary>
<p class="meta">artifact <code>${version.artifactId}</code> (${version.type})${
    version.previous === null ? ' · first version' : markup` · previous <code>${version.previous}</code>`
  } · content <code>${version.contentHash}</code></p>
${renderDiff(version.diff)}</details>`;
}
