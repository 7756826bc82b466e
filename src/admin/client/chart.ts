// The charts island (uPlot), loaded only by pages with charts: each
// <figure data-chart="ID"> draws the series in the JSON of <script id="ID">:
// {labels: ["2026-01-01", …], series: [{label, values: [n, …]}]}.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

interface ChartData {
  labels: string[];
  series: { label: string; values: number[] }[];
}

function color(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#2456d3';
}

function draw(figure: HTMLElement): void {
  const source = document.getElementById(figure.dataset.chart ?? '');
  if (!source?.textContent) return;
  const data = JSON.parse(source.textContent) as ChartData;
  const target = figure.querySelector<HTMLElement>('.chart') ?? figure;
  // Days (2026-01-31) or instants (hourly buckets).
  const xs = data.labels.map((d) => Date.parse(d.length === 10 ? `${d}T00:00:00Z` : d) / 1000);
  const stroke = [color('--accent'), color('--danger'), color('--muted')];
  const width = () => Math.max(260, target.clientWidth);
  const plot = new uPlot({
    width: width(),
    height: 220,
    axes: [{ stroke: color('--muted'), grid: { stroke: color('--border') } }, { stroke: color('--muted'), grid: { stroke: color('--border') } }],
    // A single bucket is a dot in a day either side (uPlot would spread one instant over years).
    scales: { x: { time: true, range: (_u, min, max) => (xs.length === 1 ? [xs[0] - 86_400, xs[0] + 86_400] : [min, max]) } },
    series: [{}, ...data.series.map((s, i) => ({ label: s.label, stroke: stroke[i % stroke.length], width: 2, points: { show: xs.length === 1, size: 8 } }))],
  }, [xs, ...data.series.map((s) => s.values)], target);
  new ResizeObserver(() => plot.setSize({ width: width(), height: 220 })).observe(target);
}

document.querySelectorAll<HTMLElement>('figure[data-chart]').forEach(draw);
