import { type Page, paginate } from '@rcs/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * Properties of the pagination engine over arbitrary exports: any page contents (with repeats
 * across pages), any concurrency, and pages that answer in any order.
 */
describe('paginate (properties)', () => {
  it('yields each distinct id once, in first-seen page order, never holding more than `concurrency` pages', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Pages of ids drawn from a small alphabet, so repeats across pages are common.
        fc.array(fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 5 }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 12, maxLength: 12 }),
        async (pages, concurrency, delays) => {
          const limit = 5;
          let consuming = 0;
          let maxAhead = 0;
          const read = async (page: number): Promise<Page<{ id: string }>> => {
            maxAhead = Math.max(maxAhead, page - consuming);
            // Answer after a page-specific number of macrotask turns: any completion order.
            for (let i = 0; i < (delays[page - 1] ?? 0); i++) {
              await new Promise((r) => setTimeout(r, 0));
            }
            const ids = pages[page - 1] ?? [];
            return {
              data: ids.map((n) => ({ id: `id${n}` })),
              meta: { total: pages.length * limit, page, limit, hasNext: page < pages.length },
            };
          };
          const it = paginate(read, {
            limit,
            concurrency,
            dedupeWindow: Number.POSITIVE_INFINITY,
            onPage: ({ page }) => {
              consuming = page;
            },
          });
          const got = (await it.toArray()).map((r) => r.id);
          const expected = [...new Set(pages.flat().map((n) => `id${n}`))];
          expect(got).toEqual(expected);
          expect(it.stats.seen).toBe(expected.length);
          expect(it.stats.duplicates).toBe(pages.flat().length - expected.length);
          expect(it.stats.pages).toBe(pages.length);
          expect(maxAhead).toBeLessThanOrEqual(concurrency);
        },
      ),
      { numRuns: 150 },
    );
  });
});
