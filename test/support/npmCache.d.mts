/** Types of npmCache.mjs (plain JavaScript, so that it runs before anything is built). */
export declare const ROOT: string;
export declare function ensureCachedPackage(spec: string, name: string, file: string, dir: string): Promise<string>;
export declare function ensurePostgres18(): Promise<string>;
