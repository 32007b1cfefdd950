import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatNumber } from './format.js';

/**
 * A uPlot chart as wide as its container, made once per set of options and fed new data as the
 * campaign runs: setData keeps the axes' state and costs a fraction of building the chart again.
 * uPlot's legend is off (it shows "Value: --" until hovered); `onCursor` gets the chart on every
 * cursor move so the caller can show its own read-out of the hovered point.
 */
export function useChart(options: (width: number) => uPlot.Options, data: uPlot.AlignedData, optionKeys: unknown[], onCursor?: (u: uPlot) => void) {
  const ref = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const cursor = useRef(onCursor);
  cursor.current = onCursor;
  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const built = options(box.clientWidth || 480);
    const u = new uPlot({ ...built, legend: { show: false }, hooks: { ...built.hooks, setCursor: [(self) => cursor.current?.(self)] } }, data, box);
    plot.current = u;
    // the grid cell's width changes with the window (and with the scrollbar appearing)
    const resized = new ResizeObserver(() => {
      if (box.clientWidth > 0 && box.clientWidth !== u.width) u.setSize({ width: box.clientWidth, height: u.height });
    });
    resized.observe(box);
    return () => {
      resized.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, optionKeys);
  useEffect(() => plot.current?.setData(data), [data]);
  return ref;
}

const FONT = '12px system-ui, sans-serif';
const LABEL_FONT = '600 13px system-ui, sans-serif';

/**
 * An axis whose ticks are written like every other number on the page and whose width is that of
 * its widest tick label, so the rotated name of a y axis sits beside the ticks, never over them.
 */
export function axis(label: string, extra: Partial<uPlot.Axis> = {}): uPlot.Axis {
  return {
    label,
    font: FONT,
    labelFont: LABEL_FONT,
    labelSize: 22,
    labelGap: 4,
    gap: 5,
    stroke: '#1b1f24',
    grid: { stroke: '#eaeef2', width: 1 },
    ticks: { stroke: '#8c959f', width: 1, size: 5 },
    values: (_u, splits) => splits.map((v) => formatNumber(v)),
    size: (u, values, axisIdx, cycleNum) => {
      const a = u.axes[axisIdx];
      // later cycles run while the ticks settle: keep the first measurement, or the axis jitters
      if (cycleNum > 1) return (a as unknown as { _size: number })._size;
      if (axisIdx === 0) return 30;
      u.ctx.font = `${12 * devicePixelRatio}px system-ui, sans-serif`;
      const widest = Math.max(0, ...(values ?? []).map((v) => u.ctx.measureText(v).width / devicePixelRatio));
      return Math.ceil(widest + 5 + 5 + 4);
    },
    ...extra,
  };
}

/** Padding around a range, so the extreme points are not cut in half by the plot's edge. */
export function padded(min: number, max: number): [number, number] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  const span = max - min || Math.abs(max) || 1;
  return [min - span * 0.08, max + span * 0.08];
}
