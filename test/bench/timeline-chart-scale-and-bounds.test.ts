/**
 * The timeline chart's count axis runs from 0 to N, the lifecycles requested, also when some of
 * them failed; and every label it writes, the axes' too, lies inside the picture, each panel's
 * below the picture's title.
 */
import { describe, expect, it } from 'vitest';
import { TIMELINE_STATES, timelineSvg, type TimelineSample, type TimelineState } from '../../bench/report.js';
import { designResult } from './design-result-fixture.js';

function sample(atMs: number, counts: Partial<Record<TimelineState, number>>): TimelineSample {
  return { atMs, counts: { ...(Object.fromEntries(TIMELINE_STATES.map((s) => [s, 0])) as Record<TimelineState, number>), ...counts } };
}

/** Four lifecycles requested: three finish, one fails. */
const TIMELINE = [sample(0, { waiting: 4 }), sample(10_000, { creating: 1, 'in-use': 2, failed: 1 }), sample(20_000, { finished: 3, failed: 1 })];
const RUN = designResult({ volumes: 4, converged: 3, failed: 1, timeline: TIMELINE });

function frame(svg: string) {
  const m = /<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="none" stroke="#333"\/>/.exec(svg)!;
  return { y: Number(m[2]), height: Number(m[4]) };
}

describe('the timeline chart', () => {
  it('scales counts to the lifecycles requested: the failed ones fill the stack to the top, labelled N', () => {
    const svg = timelineSvg('Lifecycles by state', [RUN]);
    const { y: top } = frame(svg);
    const last = [...svg.matchAll(/points="([^"]+)"><title>failed<\/title>/g)].map((m) => m[1]!.split(' ').map((p) => p.split(',').map(Number)))[0]!;
    // The failed area is the last on the stack: its upper edge at the last sample is the panel's top.
    expect(last[TIMELINE.length - 1]![1]).toBeCloseTo(top, 1);
    const countLabels = [...svg.matchAll(/<text x="[\d.]+" y="([\d.]+)" text-anchor="end" dominant-baseline="middle">(\d+)<\/text>/g)].map((m) => m[2]);
    expect(countLabels).toEqual(['0', '1', '2', '3', '4']);
  });

  for (const designs of [['provisioner'], ['provisioner', 'naive']]) {
    it(`writes every label inside the picture, with ${designs.length} panel(s)`, () => {
      const svg = timelineSvg('Lifecycles by state', designs.map((design) => ({ ...RUN, design })));
      const width = Number(/<svg [^>]*width="([\d.]+)"/.exec(svg)![1]);
      const height = Number(/<svg [^>]*height="([\d.]+)"/.exec(svg)![1]);
      const texts = [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)<\/text>/g)];
      expect(texts.map((m) => m[3])).toContain('virtual time');
      for (const [, x, y, text] of texts) {
        expect(Number(x), text).toBeLessThanOrEqual(width);
        expect(Number(y), text).toBeGreaterThan(0);
        expect(Number(y), text).toBeLessThanOrEqual(height);
      }
    });

    it(`keeps each panel's name, legend and frame below the title, with ${designs.length} panel(s)`, () => {
      const svg = timelineSvg('Lifecycles by state', designs.map((design) => ({ ...RUN, design })));
      const title = /<text x="[\d.]+" y="([\d.]+)" font-size="(\d+)" font-weight="bold">Lifecycles by state<\/text>/.exec(svg)!;
      const titleBaseline = Number(title[1]);
      // A text's glyphs reach up to its font size above its baseline (11 px unless it says otherwise).
      const texts = [...svg.matchAll(/<text x="[\d.]+" y="([\d.]+)"([^>]*)>([^<]*)<\/text>/g)].filter((m) => m[3] !== 'Lifecycles by state');
      expect(texts.length).toBeGreaterThan(0);
      for (const [, y, attributes, text] of texts) {
        const size = Number(/font-size="(\d+)"/.exec(attributes!)?.[1] ?? 11);
        expect(Number(y) - size, text).toBeGreaterThanOrEqual(titleBaseline);
      }
      const rects = [...svg.matchAll(/<rect x="[\d.]+" y="([\d.]+)"/g)].map((m) => Number(m[1]));
      expect(rects.length).toBeGreaterThan(0);
      for (const y of rects) expect(y).toBeGreaterThanOrEqual(titleBaseline);
    });
  }
});
