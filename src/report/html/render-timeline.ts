import { joinHtml, markup } from './escape-html.js';
import { formatDuration } from './format-figures.js';
import type { SafeHtml } from './escape-html.js';
import type { ReportStep } from '../model/index.js';

/** Bars drawn at most; a larger run's timeline says how many it left out (every step is still listed below). */
export const MAX_TIMELINE_BARS = 1000;

const WIDTH = 1000;
const LABEL = 70;
const LANE_HEIGHT = 22;
const TOP = 18;

/** The run's timeline as inline SVG: one row per lane, one bar per step that started, its length the duration. */
export function renderTimeline(steps: readonly ReportStep[]): SafeHtml {
  const timed = steps.filter((step) => step.startedAt !== null && !Number.isNaN(Date.parse(step.startedAt)));
  if (timed.length === 0) return markup`<p class="meta">No step has a start time to draw.</p>`;
  const drawn = timed.slice(0, MAX_TIMELINE_BARS);
  const startOf = (step: ReportStep): number => Date.parse(step.startedAt ?? '');
  const start = Math.min(...drawn.map(startOf));
  const end = Math.max(...drawn.map((step) => startOf(step) + (step.durationMs ?? 0)));
  const span = Math.max(1, end - start);
  const lanes = Math.max(...drawn.map((step) => step.lane)) + 1;
  const height = TOP + lanes * LANE_HEIGHT + 4;
  const scale = (WIDTH - LABEL - 10) / span;
  const label = `Timeline of ${drawn.length} steps in ${lanes} ${lanes === 1 ? 'lane' : 'lanes'} over ${formatDuration(span)}`;
  const bars = drawn.map((step) => {
    const x = LABEL + (startOf(step) - start) * scale;
    const width = Math.max(2, (step.durationMs ?? 0) * scale);
    const y = TOP + step.lane * LANE_HEIGHT + 3;
    const text = `${step.id} ${formatDuration(step.durationMs)}`;
    // A label goes on its bar only when it fits (about 6.5 units per character at 11px).
    const fits = width > text.length * 6.5 + 6;
    return markup`<g><title>${step.key}: ${step.status}, ${formatDuration(step.durationMs)}${
      step.agent === null ? null : `, agent ${step.agent}`
    }</title><rect class="s-${step.status}" x="${fixed(x)}" y="${y}" width="${fixed(width)}" height="${LANE_HEIGHT - 6}" rx="2"></rect>${
      fits ? markup`<text class="on-bar" x="${fixed(x + 4)}" y="${y + 12}">${text}</text>` : null
    }</g>`;
  });
  const laneLabels = Array.from(
    { length: lanes },
    (_lane, lane) => markup`<text x="4" y="${TOP + lane * LANE_HEIGHT + 15}">lane ${lane + 1}</text>`,
  );
  return markup`<svg class="timeline" role="img" aria-label="${label}" viewBox="0 0 ${WIDTH} ${height}">
<text x="${LABEL}" y="12">0 s</text><text x="${WIDTH - 10}" y="12" text-anchor="end">${formatDuration(span)}</text>
<line class="axis" x1="${LABEL}" y1="${TOP - 2}" x2="${WIDTH - 10}" y2="${TOP - 2}"></line>
${joinHtml(laneLabels)}${joinHtml(bars)}</svg>${
    timed.length > drawn.length
      ? markup`<p class="note">The timeline draws the first ${drawn.length} of ${timed.length} steps; every step is listed below.</p>`
      : null
  }`;
}

function fixed(value: number): string {
  return value.toFixed(1);
}
