import { describe, expect, it } from 'vitest';
import { renderTimeline } from '../../../src/report/html/render-timeline.js';
import { reportStep } from '../../helpers/report-fixture.js';

describe('renderTimeline', () => {
  it('draws one bar per started step in its lane, scaled to the run, labelled when it fits', () => {
    const svg = renderTimeline([
      reportStep('plan', { startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1000, lane: 0 }),
      reportStep('build', { startedAt: '2026-01-01T00:00:00.500Z', durationMs: 1500, lane: 1 }),
      reportStep('never', { startedAt: null, durationMs: null, status: 'pending' }),
    ]).value;
    expect(svg).toContain('role="img" aria-label="Timeline of 2 steps in 2 lanes over 2.0 s"');
    expect(svg.match(/<rect /g)).toHaveLength(2);
    // 920 units span 2 s: plan covers the first half, build starts a quarter in and runs to the end.
    expect(svg).toContain('<rect class="s-completed" x="70.0" y="21" width="460.0"');
    expect(svg).toContain('<rect class="s-completed" x="300.0" y="43" width="690.0"');
    expect(svg).toContain('<text class="on-bar" x="74.0" y="33">plan 1.0 s</text>');
    expect(svg).toContain('<text x="4" y="55">lane 2</text>');
  });

  it('leaves the label off a bar too short for it, keeping it in the tooltip', () => {
    const svg = renderTimeline([
      reportStep('long', { durationMs: 10_000 }),
      reportStep('a-step-with-a-long-name', { durationMs: 10, lane: 1 }),
    ]).value;
    expect(svg).not.toContain('>a-step-with-a-long-name 10 ms</text>');
    expect(svg).toContain('<title>a-step-with-a-long-name: completed, 10 ms, agent builder</title>');
  });

  it('says so when no step has a start time', () => {
    expect(renderTimeline([reportStep('x', { startedAt: null })]).value).toContain(
      'No step has a start time',
    );
  });
});
