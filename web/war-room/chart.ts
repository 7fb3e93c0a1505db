import type { ProjectionSummary } from '../lib/api-types';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 640;
const HEIGHT = 260;
const PAD = { left: 44, right: 12, top: 12, bottom: 28 };

function el(tag: string, attributes: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

const minutes = (time: string) => {
  const [hours, mins] = time.split(':').map(Number);
  return (hours ?? 0) * 60 + (mins ?? 0);
};

/**
 * The day's turnout curve, drawn by hand in SVG (a chart library would weigh more than the rest
 * of the screen): the learned curve with its band, the configured curve it started from, the
 * reports received per hour as bars, and a line at the current time.
 */
export function drawCurve(
  container: HTMLElement,
  curve: ProjectionSummary['curve'] | undefined,
  hourly: Map<number, { voterReports: number; countReports: number }>,
  nowMinutes: number,
): void {
  const svg = el('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-labelledby': 'curve-desc' }) as SVGSVGElement;
  const points = curve?.points ?? [];
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last || points.length < 2) {
    svg.append(el('title', { id: 'curve-desc' }, 'Sin curva: falta configurar la fecha de la elección.'));
    svg.append(el('text', { x: WIDTH / 2, y: HEIGHT / 2, 'text-anchor': 'middle', class: 'muted' }, 'La curva aparece cuando se configura el día de elecciones.'));
    container.replaceChildren(svg);
    return;
  }
  const start = minutes(first.time);
  const end = minutes(last.time);
  const x = (minute: number) => PAD.left + ((minute - start) / Math.max(1, end - start)) * (WIDTH - PAD.left - PAD.right);
  const y = (fraction: number) => HEIGHT - PAD.bottom - fraction * (HEIGHT - PAD.top - PAD.bottom);
  const path = (key: 'fraction' | 'prior' | 'low' | 'high') =>
    points.map((point, i) => `${i ? 'L' : 'M'}${x(minutes(point.time)).toFixed(1)},${y(point[key]).toFixed(1)}`).join('');
  const share = Math.round((points.find((point) => minutes(point.time) >= nowMinutes)?.fraction ?? last.fraction) * 100);
  svg.append(el('title', { id: 'curve-desc' }, `Curva de participación: a esta hora se estima votado el ${share} % del total del día.`));

  // Axes: share of the day's final turnout, and the hours of the day.
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    svg.append(el('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(tick), y2: y(tick), class: 'grid' }));
    svg.append(el('text', { x: PAD.left - 6, y: y(tick) + 4, 'text-anchor': 'end', class: 'axis' }, `${tick * 100} %`));
  }
  // A day of a few minutes (a rehearsal, the demo) has no hours to speak of: its curve's own times label it, with no bars.
  if (end - start < 180) {
    for (const point of points) svg.append(el('text', { x: x(minutes(point.time)), y: HEIGHT - 8, 'text-anchor': 'middle', class: 'axis' }, point.time));
  }
  const maxReports = Math.max(1, ...[...hourly.values()].map((bucket) => bucket.voterReports + bucket.countReports));
  for (let hour = Math.floor(start / 60); end - start >= 180 && hour * 60 < end; hour++) {
    const from = Math.max(start, hour * 60);
    const to = Math.min(end, hour * 60 + 60);
    const bucket = hourly.get(hour);
    const reports = bucket ? bucket.voterReports + bucket.countReports : 0;
    const height = (reports / maxReports) * (HEIGHT - PAD.top - PAD.bottom) * 0.4;
    if (reports) svg.append(el('rect', { x: x(from) + 1, y: HEIGHT - PAD.bottom - height, width: Math.max(1, x(to) - x(from) - 2), height, class: 'bar' }, undefined));
    svg.append(el('text', { x: x(from), y: HEIGHT - 8, 'text-anchor': 'middle', class: 'axis' }, `${hour}h`));
  }
  const band = points.map((point, i) => `${i ? 'L' : 'M'}${x(minutes(point.time)).toFixed(1)},${y(point.high).toFixed(1)}`).join('');
  const back = [...points]
    .reverse()
    .map((point) => `L${x(minutes(point.time)).toFixed(1)},${y(point.low).toFixed(1)}`)
    .join('');
  svg.append(el('path', { d: `${band}${back}Z`, class: 'band' }));
  svg.append(el('path', { d: path('prior'), class: 'prior' }));
  svg.append(el('path', { d: path('fraction'), class: 'learned' }));
  if (nowMinutes >= start && nowMinutes <= end) svg.append(el('line', { x1: x(nowMinutes), x2: x(nowMinutes), y1: PAD.top, y2: HEIGHT - PAD.bottom, class: 'now' }));
  container.replaceChildren(svg);
}
