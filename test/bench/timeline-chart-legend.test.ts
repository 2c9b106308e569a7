/**
 * The timeline chart's legend names every state inside the picture, the last one too, for one
 * design or two.
 */
import { describe, expect, it } from 'vitest';
import { TIMELINE_STATES, timelineSvg } from '../../bench/report.js';
import { designResult } from './design-result-fixture.js';

/** Fewer pixels a character than any sans-serif face at the chart's 11 px takes on average. */
const MIN_PX_PER_CHAR = 5;

describe('the timeline chart legend', () => {
  for (const designs of [['provisioner'], ['provisioner', 'naive']]) {
    it(`fits every state's swatch and name inside the picture, in order and apart, with ${designs.length} panel(s)`, () => {
      const svg = timelineSvg('Lifecycles by state', designs.map((design) => designResult({ design, volumes: 4 })));
      const width = Number(/<svg [^>]*width="([\d.]+)"/.exec(svg)![1]);
      const viewBoxWidth = Number(/viewBox="0 0 ([\d.]+) /.exec(svg)![1]);
      expect(viewBoxWidth).toBe(width);
      const labels = [...svg.matchAll(/<text x="([\d.]+)" y="[\d.]+">([a-z-]+)<\/text>/g)].map((m) => ({ x: Number(m[1]), state: m[2]! }));
      expect(labels.map((l) => l.state)).toEqual(designs.flatMap(() => [...TIMELINE_STATES]));
      const swatches = [...svg.matchAll(/<rect x="([\d.]+)" y="[\d.]+" width="10" height="10" fill="#[0-9a-f]+"\/>/g)].map((m) => Number(m[1]));
      expect(swatches).toHaveLength(labels.length);
      labels.forEach((label, i) => {
        const end = label.x + label.state.length * MIN_PX_PER_CHAR;
        expect(end, `${label.state} ends inside the picture`).toBeLessThanOrEqual(width);
        expect(swatches[i]! + 10).toBeLessThanOrEqual(label.x);
        const next = swatches[i + 1];
        if (next !== undefined && i % TIMELINE_STATES.length !== TIMELINE_STATES.length - 1) expect(end).toBeLessThan(next);
      });
    });
  }
});
