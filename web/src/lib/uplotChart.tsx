// The uPlot part of LineChart: it draws on a canvas sized to its box and follows the box's width, so the
// chart fits a phone screen as well as a desktop one.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ChartProps } from './LineChart.tsx';

export default function UplotChart({ times, series, height = 220 }: ChartProps) {
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
        scales: { x: { time: true, range: () => dayAround(times) } },
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
