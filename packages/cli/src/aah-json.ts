import { aahRequest } from '@shop/core';

/**
 * `shop status --aah`: a pending ask as an AAH decision/request. Its own module, loaded only
 * with --aah, so a plain `shop status` never loads the request's schema (zod).
 */
export { aahRequest };
