import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'react';
import type { Series } from './analytics-series';

// only what a bar chart needs: chart.js tree-shakes the rest away (this module is its own lazy chunk)
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

const COLORS = ['#1f6feb', '#d4762c', '#2da44e', '#8250df'];

/**
 * A bar chart (chart.js on a canvas). The canvas is an image named by `label`; the figures stay
 * readable for everyone in the caption the caller renders beside it.
 */
export default function BarChart({ label, series }: { label: string; series: Series }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  // drawn again only when the figures change, not on every render of the page
  const figures = JSON.stringify(series);
  useEffect(() => {
    if (!canvas.current) return undefined;
    const s = JSON.parse(figures) as Series;
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: {
        labels: [...s.labels],
        datasets: s.datasets.map((d, i) => ({
          label: d.label,
          data: [...d.values],
          backgroundColor: COLORS[i % COLORS.length],
        })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        scales: { y: { beginAtZero: true } },
      },
    });
    return () => chart.destroy();
  }, [figures]);
  return (
    <div className="chart-box">
      <canvas
        ref={canvas}
        role="img"
        aria-label={label}
        data-points={series.datasets.reduce((n, d) => n + d.values.length, 0)}
      />
    </div>
  );
}
