// Time series as a line chart with uPlot. Loaded on demand (lazy below), so pages without a chart do not
// carry it. The numbers are also given as a table for screen readers and for anyone who prefers them.
import { lazy, Suspense } from 'react';

// the props are declared with the part that draws them, so the two files import one way
import type { ChartProps } from './uplotChart.tsx';

const Plot = lazy(() => import('./uplotChart.tsx'));

export function LineChart(props: ChartProps) {
  return (
    <figure className="chart">
      <figcaption className="visually-hidden">{props.title}</figcaption>
      <Suspense fallback={<div className="chart-placeholder" style={{ height: props.height ?? 220 }} />}>
        <Plot {...props} />
      </Suspense>
      {/* a table lays out wider than its 1 px box: the hidden box is a div around it */}
      <div className="visually-hidden">
        <table>
          <caption>{props.title}</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              {props.series.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.times.map((t, i) => (
              <tr key={t}>
                <th scope="row">{new Date(t * 1000).toLocaleString()}</th>
                {props.series.map((s) => (
                  <td key={s.label}>{s.values[i]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
