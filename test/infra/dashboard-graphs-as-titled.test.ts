/**
 * The dashboard's graphs show what their titles say: EC2 call latency as its 90th percentile
 * (`p90`), operations by outcome as counts (sums), and the stream lag graph with the line at which
 * the `WatcherIteratorAge` alarm fires (more than 5 minutes behind, README's alarm table).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ITERATOR_AGE_ALARM_MS } from '../../infra/constructs/monitoring.js';
import { removeSynthesized, synthesize, type Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(removeSynthesized);

interface Widget {
  properties: { title?: string; metrics?: unknown[][]; annotations?: { horizontal?: { value: number; label?: string }[] } };
}

/** The dashboard's graphs by title, its CloudFormation references replaced by a placeholder. */
function graphs(): Map<string, Widget['properties']> {
  const dashboard = Object.values(s.json.Resources).find((resource) => resource.Type === 'AWS::CloudWatch::Dashboard')!;
  const joined = dashboard.Properties!.DashboardBody as { 'Fn::Join': [string, unknown[]] };
  const body = JSON.parse(joined['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : 'ref')).join('')) as { widgets: Widget[] };
  return new Map(body.widgets.map((widget) => [widget.properties.title ?? '', widget.properties]));
}

const searchesOf = (graph: Widget['properties'] | undefined) =>
  (graph?.metrics ?? []).flatMap((line) => line.flatMap((part) => (typeof part === 'object' && part !== null && 'expression' in part ? [(part as { expression: string }).expression] : [])));

describe('dashboard', () => {
  it('EC2 call latency: the 90th percentile per operation, as titled', () => {
    const latency = [...graphs()].find(([title]) => title.startsWith('EC2 call latency'));
    expect(latency?.[0]).toMatch(/\(p90, ms\)/);
    const [search] = searchesOf(latency?.[1]);
    expect(search).toMatch(/MetricName="OperationLatency"', 'p90', 60\)$/);
  });

  it('operations by outcome: the count per minute', () => {
    const [search] = searchesOf(graphs().get('Operations by outcome'));
    expect(search).toMatch(/MetricName="Operations"', 'Sum', 60\)$/);
  });

  it('stream lag: drawn with the line the watcher\'s iterator age alarm fires above', () => {
    const lag = graphs().get('Stream lag: watcher iterator age (ms)');
    expect(lag?.annotations?.horizontal).toEqual([expect.objectContaining({ value: ITERATOR_AGE_ALARM_MS, label: 'alarm' })]);
    expect(ITERATOR_AGE_ALARM_MS).toBe(5 * 60 * 1000);
  });
});
