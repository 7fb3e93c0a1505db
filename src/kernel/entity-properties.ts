import { p } from '@mikro-orm/core';
import { newId } from './ids';

/*
 * Properties most entities share, spread into a `defineEntity` properties map where the columns stand
 * (`...uuidPrimaryKey` first, `...timestamps` last): composition rather than an abstract base entity,
 * because a base's columns always come first and tables need different subsets of these.
 */

/** A UUID v7 key the ORM assigns on create, so ids sort by creation. */
export const uuidPrimaryKey = {
  id: p
    .uuid()
    .primary()
    .onCreate(() => newId()),
};

/** When the row was created; set once by the ORM. */
export const createdAtStamp = {
  createdAt: p.datetime().onCreate(() => new Date()),
};

/** When the row was created and when the ORM last changed it. */
export const timestamps = {
  ...createdAtStamp,
  updatedAt: p
    .datetime()
    .onCreate(() => new Date())
    .onUpdate(() => new Date()),
};
