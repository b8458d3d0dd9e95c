/**
 * The geometry of a race's lap-time chart, kept pure so it is tested without a browser: lap
 * number on x (1…the most laps anyone did), lap time in seconds on y (fastest at the bottom),
 * "nice" ticks on both axes, and one polyline per driver.
 */

export interface LapSeries {
  id: number;
  name: string;
  /** Lap times in ms, by lap number. */
  laps: readonly { lap_number: number; lap_time_ms: number }[];
}

export interface ChartBox {
  width: number;
  height: number;
  /** Room for the axes' labels. */
  margin: { top: number; right: number; bottom: number; left: number };
  /** About how many ticks each axis gets (fewer on a phone, where the labels are larger). */
  ticks: { x: number; y: number };
}

export interface ChartPoint {
  x: number;
  y: number;
  lap: number;
  seconds: number;
}

export interface ChartLine {
  id: number;
  name: string;
  points: ChartPoint[];
  /** The `points` attribute of the driver's <polyline>. */
  polyline: string;
}

export interface ChartGeometry {
  xTicks: { value: number; x: number }[];
  yTicks: { value: number; y: number }[];
  lines: ChartLine[];
  plot: { left: number; right: number; top: number; bottom: number };
}

/** A step of 1, 2 or 5 × 10ⁿ giving about `count` ticks over `span`. */
export function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const normalized = raw / magnitude;
  const nice = normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10;
  return nice * magnitude;
}

const round = (value: number) => Math.round(value * 100) / 100;

export function lapChart(series: readonly LapSeries[], box: ChartBox): ChartGeometry {
  const plot = {
    left: box.margin.left,
    right: box.width - box.margin.right,
    top: box.margin.top,
    bottom: box.height - box.margin.bottom,
  };
  const all = series.flatMap((s) => s.laps);
  const maxLap = Math.max(1, ...all.map((l) => l.lap_number));
  const seconds = all.map((l) => l.lap_time_ms / 1000);
  let low = seconds.length ? Math.min(...seconds) : 0;
  let high = seconds.length ? Math.max(...seconds) : 1;
  if (high - low < 0.5) {
    // One lap time (or all alike): a second either side keeps the line off the frame.
    low -= 1;
    high += 1;
  }
  const yStep = niceStep(high - low, box.ticks.y);
  const yMin = Math.max(0, Math.floor(low / yStep) * yStep);
  const yMax = Math.ceil(high / yStep) * yStep;

  const x = (lap: number) =>
    maxLap === 1
      ? (plot.left + plot.right) / 2
      : plot.left + ((lap - 1) / (maxLap - 1)) * (plot.right - plot.left);
  const y = (value: number) => plot.bottom - ((value - yMin) / (yMax - yMin)) * (plot.bottom - plot.top);

  const xStep = Math.max(1, Math.ceil(niceStep(maxLap - 1 || 1, box.ticks.x)));
  const xTicks: ChartGeometry['xTicks'] = [];
  for (let lap = 1; lap <= maxLap; lap += xStep) xTicks.push({ value: lap, x: round(x(lap)) });
  const yTicks: ChartGeometry['yTicks'] = [];
  for (let value = yMin; value <= yMax + yStep / 2; value += yStep) {
    yTicks.push({ value: round(value), y: round(y(value)) });
  }

  const lines = series.map((s) => {
    const points = [...s.laps]
      .sort((a, b) => a.lap_number - b.lap_number)
      .map((l) => ({
        lap: l.lap_number,
        seconds: l.lap_time_ms / 1000,
        x: round(x(l.lap_number)),
        y: round(y(l.lap_time_ms / 1000)),
      }));
    return { id: s.id, name: s.name, points, polyline: points.map((p) => `${p.x},${p.y}`).join(' ') };
  });
  return { xTicks, yTicks, lines, plot };
}

/** Driver colours, each readable on the dark and the light theme. */
export const SERIES_COLOURS = [
  '#f97316',
  '#06b6d4',
  '#a855f7',
  '#22c55e',
  '#eab308',
  '#ec4899',
  '#3b82f6',
  '#ef4444',
] as const;

export const seriesColour = (index: number): string =>
  SERIES_COLOURS[index % SERIES_COLOURS.length] ?? '#888';
