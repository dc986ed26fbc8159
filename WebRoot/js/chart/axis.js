// Axis math shared by every chart: round steps (1, 2 or 5 times a power of ten), time rulers. Pure.
import { tickLabel } from '../format.js';

/** The smallest round step (1, 2 or 5 times a power of ten) of at least `least`. */
export function niceStep(least) {
  const power = 10 ** Math.floor(Math.log10(least));
  return [1, 2, 5, 10].map((factor) => factor * power).find((step) => step >= least);
}

/**
 * The labelled ticks of a time ruler over `view` ({start, end}, ns) drawn `width` px wide, placed
 * as the timeline's ruler places them (its tickStep: a round step at least 90 px apart):
 * [{time, x, label}], so a chart under the timeline shows the same times at the same x.
 */
export function rulerTicks(view, width) {
  const span = view.end - view.start;
  if (!(span > 0) || !(width > 0)) return [];
  const step = niceStep(Math.max((span / width) * 90, 1));
  const firstTick = Math.ceil(view.start / step) * step;
  const ticks = [];
  for (let time = firstTick; time <= view.end; time += step) {
    ticks.push({ time, x: ((time - view.start) / span) * width, label: tickLabel(time, step, firstTick) });
  }
  return ticks;
}
