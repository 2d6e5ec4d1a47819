/** Types of runTempDirs.mjs (plain JavaScript, so that globalTeardown can load it). */
export declare function noteRunTempDir(dir: string): void;
export declare function removeRunTempDirs(): number;
