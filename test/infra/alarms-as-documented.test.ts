/**
 * The alarms the README's table describes (Deploy, alarms): the stack has exactly those, and the
 * stream lag alarm fires as the table says, more than 5 minutes behind for 5 minutes.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_NAMES } from '../../infra/constructs/functions.js';
import { removeSynthesized, resourceId, synthesize, type Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(removeSynthesized);

/** The alarm names in the first column of the README's alarm table, `<Function>` written out for each function. */
function documentedAlarms(): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const table = readme.slice(readme.indexOf('| Alarm | Fires when | What to do |'));
  const rows = table.split('\n').slice(2).filter((line) => line.startsWith('| `'));
  return rows
    .map((row) => /^\| `([^`]+)`/.exec(row)![1]!)
    .flatMap((name) => (name.startsWith('<Function>') ? FUNCTION_NAMES.map((fn) => name.replace('<Function>', fn.charAt(0).toUpperCase() + fn.slice(1))) : [name]));
}

describe('alarms', () => {
  it('are those the README lists, each under its name, and no other', () => {
    const alarms = Object.keys(s.template.findResources('AWS::CloudWatch::Alarm'));
    const documented = documentedAlarms();
    expect(documented.length).toBeGreaterThan(0);
    for (const name of documented) expect(alarms.filter((id) => id.startsWith(`Monitoring${name}`)), name).toHaveLength(1);
    expect(alarms).toHaveLength(documented.length);
  });

  it('WatcherIteratorAge: the watcher more than 5 minutes behind the table stream for 5 minutes', () => {
    const alarm = s.json.Resources[resourceId(s.json, 'AWS::CloudWatch::Alarm', 'MonitoringWatcherIteratorAge')]!.Properties!;
    expect(alarm).toMatchObject({ MetricName: 'IteratorAge', Statistic: 'Maximum', Threshold: 5 * 60 * 1000, ComparisonOperator: 'GreaterThanThreshold' });
    // Every period of the 5 minutes evaluated breaching, not one peak.
    expect(alarm.DatapointsToAlarm ?? alarm.EvaluationPeriods).toBe(alarm.EvaluationPeriods);
    expect((alarm.Period as number) * (alarm.EvaluationPeriods as number)).toBe(5 * 60);
    expect(alarm.AlarmDescription).toMatch(/more than 5 minutes behind/);
  });
});
