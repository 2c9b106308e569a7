/**
 * The chart `npm run bench` writes beside each table (`…svg`): lifecycles by state over virtual
 * time, as stacked areas, one panel per design.
 */
import { describe, expect, it } from 'vitest';
import { TIMELINE_STATES, timelineSvg, type TimelineSample, type TimelineState } from '../../bench/report.js';
import { designResult } from './design-result-fixture.js';

function sample(atMs: number, counts: Partial<Record<TimelineState, number>>): TimelineSample {
  return { atMs, counts: { ...(Object.fromEntries(TIMELINE_STATES.map((s) => [s, 0])) as Record<TimelineState, number>), ...counts } };
}

/** Four lifecycles: all waiting at 0 s, under way at 10 s, three finished and one failed at 20 s. */
const TIMELINE = [
  sample(0, { waiting: 4 }),
  sample(10_000, { creating: 1, 'in-use': 2, finished: 1 }),
  sample(20_000, { finished: 3, failed: 1 }),
];

interface Frame {
  x: number;
  y: number;
  width: number;
  height: number;
}

function frames(svg: string): Frame[] {
  return [...svg.matchAll(/<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="none" stroke="#333"\/>/g)].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
    width: Number(m[3]),
    height: Number(m[4]),
  }));
}

/** Each area's upper and lower edge, as [x, y] per sample, left to right. */
function areas(svg: string): Array<{ state: string; upper: number[][]; lower: number[][] }> {
  return [...svg.matchAll(/<polygon fill="[^"]+" stroke="none" points="([^"]+)"><title>([^<]+)<\/title><\/polygon>/g)].map((m) => {
    const points = m[1]!.split(' ').map((point) => point.split(',').map(Number));
    const half = points.length / 2;
    return { state: m[2]!, upper: points.slice(0, half), lower: points.slice(half).reverse() };
  });
}

describe('the timeline chart', () => {
  const svg = timelineSvg('Lifecycles by state', [designResult({ volumes: 4, timeline: TIMELINE })]);
  const frame = frames(svg)[0]!;
  const bottom = frame.y + frame.height;

  it('stacks an area for each state that held a lifecycle, in the order of the states, and none for a state that held none', () => {
    expect(areas(svg).map((a) => a.state)).toEqual(['waiting', 'creating', 'in-use', 'finished', 'failed']);
    // The legend names every state.
    for (const state of TIMELINE_STATES) expect(svg).toContain(`>${state}</text>`);
  });

  it("gives each state its share of the panel's height at each sample, each area on top of the one before, from the bottom up", () => {
    const drawn = areas(svg);
    const share = (count: number) => (count / 4) * frame.height;
    let below = TIMELINE.map(() => bottom);
    for (const area of drawn) {
      const state = area.state as TimelineState;
      TIMELINE.forEach((s, i) => {
        expect(area.lower[i]![1]).toBeCloseTo(below[i]!, 0);
        expect(below[i]! - area.upper[i]![1]!).toBeCloseTo(share(s.counts[state]), 0);
      });
      below = area.upper.map((point) => point[1]!);
    }
    // Every lifecycle is in one state at each sample: the stack fills the panel.
    expect(below.every((y) => Math.abs(y - frame.y) < 0.1)).toBe(true);
  });

  it('runs time from 0 at the left edge to the last sample at the right edge, labelled at each quarter, and counts from 0 at the bottom to N at the top', () => {
    const waiting = areas(svg)[0]!;
    expect(waiting.upper.map((point) => point[0])).toEqual([frame.x, frame.x + frame.width / 2, frame.x + frame.width]);
    const timeLabels = [...svg.matchAll(/<text x="([\d.]+)" y="[\d.]+" text-anchor="middle">(\d+) s<\/text>/g)].map((m) => [Number(m[1]), m[2]]);
    expect(timeLabels).toEqual([0, 1, 2, 3, 4].map((q) => [frame.x + (frame.width * q) / 4, String(5 * q)]));
    const countLabels = [...svg.matchAll(/<text x="[\d.]+" y="([\d.]+)" text-anchor="end" dominant-baseline="middle">(\d+)<\/text>/g)].map((m) => [Number(m[1]), m[2]]);
    expect(countLabels).toEqual([0, 1, 2, 3, 4].map((q) => [bottom - (frame.height * q) / 4, String(q)]));
  });

  it('draws one panel per design, one under the other, each inside the picture and named after its design', () => {
    const two = timelineSvg('Lifecycles by state', [designResult({ volumes: 4, timeline: TIMELINE }), designResult({ design: 'naive', volumes: 4, timeline: TIMELINE })]);
    const [first, second] = frames(two);
    expect(frames(two)).toHaveLength(2);
    expect(second!.y).toBeGreaterThan(first!.y + first!.height);
    const height = Number(/<svg [^>]*height="(\d+)"/.exec(two)![1]);
    expect(second!.y + second!.height).toBeLessThan(height);
    expect(two).toMatch(/font-weight="bold">provisioner<\/text>[\s\S]*font-weight="bold">naive<\/text>/);
    expect(areas(two)).toHaveLength(10);
  });

  it('escapes the title and the design names for XML', () => {
    const escaped = timelineSvg('N < 10 & "seed" > 1', [designResult({ design: '<naive & co>', volumes: 4, timeline: TIMELINE })]);
    expect(escaped).toContain('>N &lt; 10 &amp; &quot;seed&quot; &gt; 1</text>');
    expect(escaped).toContain('>&lt;naive &amp; co&gt;</text>');
    expect(escaped).not.toContain('<naive');
  });
});
