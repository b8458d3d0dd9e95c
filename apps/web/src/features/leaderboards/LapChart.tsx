/**
 * A race's lap times, one line per driver (issue 12: people would rather look than read), drawn
 * by hand in SVG: lap on x, seconds on y, axis labels, a legend, an accessible title and
 * description, and the same numbers as a table for screen readers and anyone who prefers one.
 */
import type { RaceDetail } from '@telerace/protocol';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { bodyCell, headCell } from '../../components/table/table-styles';
import { formatNumber } from '../../lib/number-format';
import { useMediaQuery } from '../../lib/use-media-query';
import { displayName } from '../../lib/username';
import { formatLapTime } from '../race/race-format';
import { lapChart, seriesColour } from './lap-chart';

/**
 * The drawing's size in its own units; the SVG is scaled to the page's width. A phone gets a
 * narrower drawing with larger text and fewer ticks, so a label stays about 12 px on a 360 px
 * screen (issue 41: the 640-unit drawing made them 5 px there).
 */
const BOXES = {
  wide: {
    width: 640,
    height: 320,
    margin: { top: 16, right: 16, bottom: 44, left: 56 },
    ticks: { x: 8, y: 5 },
    fontSize: 12,
  },
  phone: {
    width: 340,
    height: 260,
    margin: { top: 12, right: 12, bottom: 46, left: 54 },
    ticks: { x: 4, y: 4 },
    fontSize: 15,
  },
} as const;

/** Screens narrower than the styles' `sm` breakpoint (40rem). */
const PHONE_WIDTH = '(max-width: 39.999rem)';

export function LapChart({ participants }: { participants: RaceDetail['participants'] }) {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const descId = useId();
  const language = i18n.resolvedLanguage;
  const BOX = BOXES[useMediaQuery(PHONE_WIDTH) ? 'phone' : 'wide'];
  const series = participants.map((p) => ({ id: p.user_id, name: displayName(p.username), laps: p.laps }));
  const maxLap = Math.max(0, ...participants.flatMap((p) => p.laps.map((l) => l.lap_number)));
  if (maxLap === 0) return <p className="text-sm text-muted">{t('racePage.chart.empty')}</p>;
  const chart = lapChart(series, BOX);
  const { plot } = chart;
  const number = (value: number) => formatNumber(value, language, { max: 3 });
  return (
    <figure className="space-y-3">
      <svg
        viewBox={`0 0 ${BOX.width} ${BOX.height}`}
        role="img"
        aria-labelledby={`${titleId} ${descId}`}
        className="h-auto w-full text-fg"
        data-testid="race-chart"
      >
        <title id={titleId}>{t('racePage.chart.title')}</title>
        <desc id={descId}>{t('racePage.chart.desc')}</desc>
        <g fontSize={BOX.fontSize} fill="currentColor">
          {chart.yTicks.map((tick) => (
            <g key={`y${tick.value}`}>
              <line
                x1={plot.left}
                x2={plot.right}
                y1={tick.y}
                y2={tick.y}
                stroke="currentColor"
                strokeOpacity="0.15"
              />
              <text x={plot.left - 8} y={tick.y} textAnchor="end" dominantBaseline="middle">
                {number(tick.value)}
              </text>
            </g>
          ))}
          {chart.xTicks.map((tick) => (
            <text key={`x${tick.value}`} x={tick.x} y={plot.bottom + BOX.fontSize + 6} textAnchor="middle">
              {tick.value}
            </text>
          ))}
          <line x1={plot.left} x2={plot.right} y1={plot.bottom} y2={plot.bottom} stroke="currentColor" />
          <line x1={plot.left} x2={plot.left} y1={plot.top} y2={plot.bottom} stroke="currentColor" />
          <text x={(plot.left + plot.right) / 2} y={BOX.height - 6} textAnchor="middle" fontWeight="600">
            {t('racePage.chart.xAxis')}
          </text>
          <text
            transform={`translate(${BOX.fontSize} ${(plot.top + plot.bottom) / 2}) rotate(-90)`}
            textAnchor="middle"
            fontWeight="600"
          >
            {t('racePage.chart.yAxis')}
          </text>
        </g>
        {chart.lines.map((line, index) => (
          <g key={line.id} data-testid="race-chart-series" data-driver={line.name}>
            <polyline
              points={line.polyline}
              fill="none"
              stroke={seriesColour(index)}
              strokeWidth="2.5"
              strokeLinejoin="round"
            />
            {line.points.map((point) => (
              <circle key={point.lap} cx={point.x} cy={point.y} r="3.5" fill={seriesColour(index)}>
                <title>
                  {`${line.name} · ${t('racePage.chart.lap', { n: point.lap })} · ${formatLapTime(point.seconds * 1000, language)} s`}
                </title>
              </circle>
            ))}
          </g>
        ))}
      </svg>
      <figcaption>
        <ul className="flex flex-wrap gap-x-4 gap-y-1 text-sm" aria-label={t('racePage.chart.title')}>
          {chart.lines.map((line, index) => (
            <li key={line.id} className="flex items-center gap-1.5">
              <span
                aria-hidden="true"
                className="inline-block h-1 w-5 rounded-full"
                style={{ backgroundColor: seriesColour(index) }}
              />
              {line.name}
            </li>
          ))}
        </ul>
      </figcaption>
      <details className="text-sm">
        <summary className="cursor-pointer font-semibold text-accent">
          {t('racePage.chart.showTable')}
        </summary>
        <div className="mt-2 overflow-x-auto rounded-xl border border-line">
          <table className="w-full border-collapse text-left">
            <caption className="sr-only">{t('racePage.chart.tableCaption')}</caption>
            <thead>
              <tr>
                <th scope="col" className={headCell}>
                  {t('racePage.chart.xAxis')}
                </th>
                {series.map((s) => (
                  <th key={s.id} scope="col" className={`${headCell} text-right`}>
                    {s.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-line">
              {Array.from({ length: maxLap }, (_, i) => i + 1).map((lap) => (
                <tr key={lap}>
                  <th scope="row" className={bodyCell}>
                    {lap}
                  </th>
                  {series.map((s) => (
                    <td key={s.id} className={`${bodyCell} text-right font-mono tabular-nums`}>
                      {formatLapTime(s.laps.find((l) => l.lap_number === lap)?.lap_time_ms, language)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
