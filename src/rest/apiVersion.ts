/** The two REST generations. A module of its own so that the body shapes (bodies/) and the shape mapping (shapes.ts) share it without importing each other. */
export type ApiVersion = 'v2' | 'v3';
