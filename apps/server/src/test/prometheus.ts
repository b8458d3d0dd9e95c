/** Test support: Prometheus's text exposition format, parsed strictly, and one sample's value. */
import { expect } from 'vitest';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE_LINE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;

/**
 * Prometheus's text exposition format (0.0.4), strictly: HELP and TYPE once per family before
 * its samples, every sample of a declared family, well-formed labels, numeric values.
 */
export function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const helped = new Set<string>();
  const samples: Sample[] = [];
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) (\S+) (.+)$/.exec(line);
    if (comment) {
      const [, kind, name, rest] = comment as unknown as [string, string, string, string];
      if (kind === 'HELP') {
        expect(helped.has(name), `HELP ${name} twice`).toBe(false);
        helped.add(name);
      } else {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).toContain(rest);
        expect(types.has(name), `TYPE ${name} twice`).toBe(false);
        types.set(name, rest);
      }
      continue;
    }
    const match = SAMPLE_LINE.exec(line);
    expect(match, `not a sample line: ${line}`).not.toBeNull();
    const [, name, labelText = '', valueText] = match as unknown as [
      string,
      string,
      string | undefined,
      string,
    ];
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < labelText.length) {
      const label = LABEL.exec(labelText);
      expect(label, `bad labels in: ${line}`).not.toBeNull();
      labels[(label as RegExpExecArray)[1] as string] = (label as RegExpExecArray)[2] as string;
    }
    const value = Number(valueText.replace(/^\+Inf$/, 'Infinity'));
    // prom-client writes a mean without samples as `Nan`; Prometheus reads NaN in any case.
    expect(Number.isNaN(value) && !/^nan$/i.test(valueText), `bad value in: ${line}`).toBe(false);
    const family = name.replace(/_(bucket|sum|count)$/, '');
    expect(types.has(name) || types.has(family), `sample of an undeclared family: ${line}`).toBe(true);
    samples.push({ name, labels, value });
  }
  return { types, samples };
}

export function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )?.value;
}
