import { z } from 'zod';

/*
 * The list shapes every module's schemas use, apart from the ORM-backed paging in pagination.ts so
 * that a schema file, and the console that validates forms with it, needs nothing but zod.
 */

/** `?limit=&cursor=` for every list; spread into a module's query schema. */
export const pageQueryShape = {
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z
    .string()
    .max(2048)
    .regex(/^[A-Za-z0-9_-]+$/, 'is not a cursor this list gave out')
    .optional()
    .describe('Opaque: the `nextCursor` of the previous page, unchanged'),
};

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), nextCursor: z.string().nullable() });
}
