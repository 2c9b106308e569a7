/**
 * The alarms the README's table describes (Deploy, alarms): the stack has exactly those, each judged
 * over the periods the table gives, and the stream lag alarm fires as the table says, more than 5
 * minutes behind for 5 minutes.
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

/**
 * The rows of the README's alarm table: each alarm's name, `<Function>` written out for each function,
 * and what its `Judged over` column says (`5 min`, `3 × 5 min`), in seconds per period and periods.
 */
function documentedAlarmRows(): { name: string; periodSeconds: number; periods: number }[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const table = readme.slice(readme.indexOf('| Alarm | Judged over | Fires when | What to do |'));
  const rows = table.split('\n').slice(2);
  return rows.slice(0, rows.findIndex((line) => !line.startsWith('| `'))).flatMap((row) => {
    const [, name, periods, minutes] = /^\| `([^`]+)` \| (?:(\d+) × )?(\d+) min \|/.exec(row) ?? [];
    if (name === undefined) throw new Error(`README alarm row without a name and a period: ${row.slice(0, 80)}`);
    const judged = { periodSeconds: Number(minutes) * 60, periods: periods === undefined ? 1 : Number(periods) };
    const names = name.startsWith('<Function>') ? FUNCTION_NAMES.map((fn) => name.replace('<Function>', fn.charAt(0).toUpperCase() + fn.slice(1))) : [name];
    return names.map((each) => ({ name: each, ...judged }));
  });
}

function documentedAlarms(): string[] {
  return documentedAlarmRows().map((row) => row.name);
}

describe('alarms', () => {
  it('are those the README lists, each under its name, and no other', () => {
    const alarms = Object.keys(s.template.findResources('AWS::CloudWatch::Alarm'));
    const documented = documentedAlarms();
    expect(documented.length).toBeGreaterThan(0);
    for (const name of documented) expect(alarms.filter((id) => id.startsWith(`Monitoring${name}`)), name).toHaveLength(1);
    expect(alarms).toHaveLength(documented.length);
  });

  it('are each judged over the period and the number of periods in a row the README gives', () => {
    const rows = documentedAlarmRows();
    expect(rows.map((row) => `${row.name} ${row.periods}×${row.periodSeconds}`)).toContain('ExecutorBacklog 3×300');
    for (const row of rows) {
      const alarm = s.json.Resources[resourceId(s.json, 'AWS::CloudWatch::Alarm', `Monitoring${row.name}`)]!.Properties!;
      expect({ name: row.name, period: alarm.Period, periods: alarm.EvaluationPeriods, datapoints: alarm.DatapointsToAlarm ?? alarm.EvaluationPeriods }).toEqual({
        name: row.name,
        period: row.periodSeconds,
        periods: row.periods,
        datapoints: row.periods,
      });
    }
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
