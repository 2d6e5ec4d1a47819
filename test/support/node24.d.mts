/** Types of node24.mjs (plain JavaScript, so that it runs before anything is built). */
export declare const NODE24_PACKAGE: string;
export declare function ensureNode24(): Promise<string>;
