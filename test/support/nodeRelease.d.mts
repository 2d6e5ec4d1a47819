/** Types of nodeRelease.mjs (plain JavaScript, so that it runs before anything is built). */
export declare const NODE_PACKAGES: Record<22 | 24, string>;
export declare function ensureNode(major: 22 | 24): Promise<string>;
export declare function ensureNode24(): Promise<string>;
