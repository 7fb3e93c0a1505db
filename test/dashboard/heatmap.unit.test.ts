import { classBreaks, classOf, ramp } from '../../src/modules/dashboard/dashboard.heatmap';

describe('heat-map classes', () => {
  // Three obvious groups: a few, some, many.
  const values = [1, 2, 2, 10, 11, 30];

  it('natural breaks (Ckmeans) find the groups and every value falls in its own group’s class', () => {
    const breaks = classBreaks(values, 3, 'jenks');
    expect(breaks).toEqual([1, 2, 11, 30]);
    expect(values.map((value) => classOf(value, breaks))).toEqual([0, 0, 0, 1, 1, 2]);
  });

  it('quantiles split the sorted values into equal counts', () => {
    // Median of [1, 2, 2, 10, 11, 30] is (2 + 10) / 2.
    expect(classBreaks(values, 2, 'quantile')).toEqual([1, 6, 30]);
    const quartiles = classBreaks([1, 2, 3, 4, 5, 6, 7, 8, 9], 4, 'quantile');
    expect(quartiles).toEqual([1, 3, 5, 7, 9]);
    expect([1, 3, 4, 5, 6, 7, 8, 9].map((value) => classOf(value, quartiles))).toEqual([0, 0, 1, 1, 2, 2, 3, 3]);
  });

  it('asks for no more classes than there are distinct values, and ties never make an empty class', () => {
    expect(classBreaks([4, 4, 9], 5, 'jenks')).toEqual([4, 4, 9]);
    expect(classBreaks([0, 0, 0, 0, 7], 4, 'quantile')).toEqual([0, 7]);
    expect(classBreaks([5, 5], 3, 'jenks')).toEqual([5, 5]);
    expect(classOf(5, [5, 5])).toBe(0);
    expect(classBreaks([], 5, 'jenks')).toEqual([]);
    expect(classOf(3, [])).toBeNull();
    expect(classOf(0, [1, 2])).toBeNull();
  });

  it('colours run light to dark, one per class', () => {
    const colours = ramp(5);
    expect(colours).toHaveLength(5);
    expect(colours[0]).toBe('#fef0d9');
    expect(colours[4]).toBe('#b30000');
    expect(new Set(colours).size).toBe(5);
    for (const colour of colours) expect(colour).toMatch(/^#[0-9a-f]{6}$/);
  });
});
