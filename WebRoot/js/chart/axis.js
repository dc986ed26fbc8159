// Axis math shared by every chart: round steps (1, 2 or 5 times a power of ten). Pure.

/** The smallest round step (1, 2 or 5 times a power of ten) of at least `least`. */
export function niceStep(least) {
  const power = 10 ** Math.floor(Math.log10(least));
  return [1, 2, 5, 10].map((factor) => factor * power).find((step) => step >= least);
}
