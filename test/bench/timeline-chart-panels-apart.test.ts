/**
 * The timeline chart draws one panel per design, one under the other: nothing of a panel below
 * (its name, legend or frame) reaches up into the panel above, its axis labels included.
 */
import { describe, expect, it } from 'vitest';
import { timelineSvg } from '../../bench/report.js';
import { designResult } from './design-result-fixture.js';

describe('the timeline chart panels', () => {
  it("starts the second design's name, legend and frame below the first panel's axis title", () => {
    const svg = timelineSvg('Lifecycles by state', [designResult({ volumes: 4 }), designResult({ design: 'naive', volumes: 4 })]);
    const axisTitles = [...svg.matchAll(/<text x="[\d.]+" y="([\d.]+)" text-anchor="middle">virtual time<\/text>/g)].map((m) => Number(m[1]));
    expect(axisTitles).toHaveLength(2);
    const firstPanelEnd = axisTitles[0]!;
    const secondName = /<text x="[\d.]+" y="([\d.]+)" font-size="(\d+)" font-weight="bold">naive<\/text>/.exec(svg)!;
    // A text's glyphs reach up to its font size above its baseline.
    expect(Number(secondName[1]) - Number(secondName[2])).toBeGreaterThanOrEqual(firstPanelEnd);
    const second = svg.slice(svg.indexOf('>naive</text>'));
    const swatches = [...second.matchAll(/<rect x="[\d.]+" y="([\d.]+)" width="10" height="10"/g)].map((m) => Number(m[1]));
    expect(swatches.length).toBeGreaterThan(0);
    for (const y of swatches) expect(y).toBeGreaterThanOrEqual(firstPanelEnd);
    const frames = [...svg.matchAll(/<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="[\d.]+" fill="none" stroke="#333"\/>/g)].map((m) => Number(m[1]));
    expect(frames[1]).toBeGreaterThan(firstPanelEnd);
  });
});
