// The uPlot part of LineChart: it draws on a canvas sized to its box and follows the box's width, so the
// chart fits a phone screen as well as a desktop one.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  values: number[];
  color: string;
}
export interface ChartProps {
  title: string;
  /** seconds since the epoch, one per point */
  times: number[];
  series: Series[];
  height?: number;
  /** counts: the y axis starts at 0 (uPlot otherwise fits it to the data, so 40 and 42 looked far apart) */
  fromZero?: boolean;
}

export default function UplotChart({ times, series, height = 220, fromZero }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current!;
    const plot = new uPlot(
      {
        width: el.clientWidth || 300,
        height,
        series: [
          {},
          ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: times.length < 40 } })),
        ],
        axes: [{}, { size: 50 }],
        // a few points would otherwise stretch over years (uPlot guesses a range around a single x): show at
        // least a day around them, computed from the data itself
        scales: {
          x: { time: true, range: () => dayAround(times) },
          ...(fromZero && {
            y: { range: (_u: uPlot, _min: number, max: number): uPlot.Range.MinMax => [0, Math.max(1, max * 1.1)] },
          }),
        },
        legend: { show: true },
      },
      [times, ...series.map((s) => s.values)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, height]);
  return <div ref={box} className="chart-box" aria-hidden="true" />;
}

function dayAround(times: number[]): [number, number] {
  if (times.length === 0) return [Date.now() / 1000 - 86_400, Date.now() / 1000];
  const min = Math.min(...times);
  const max = Math.max(...times);
  return max - min < 86_400 ? [min - 43_200, max + 43_200] : [min, max];
}
