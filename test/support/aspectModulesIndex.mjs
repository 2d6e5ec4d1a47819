// A graphql-codegen plugin (codegen.yml) that writes src/domain/aspects/generated/modules.ts:
// the list of aspect modules, one import per module of src/domain/aspects/modules/, so that
// adding an aspect is adding its module (docs/architecture.md, "Aspect modules"). A module
// is an exported const typed `AspectModule` or `readonly AspectModule[]`; a file of that
// folder exporting none is an error, not a module silently left out.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const FOLDER = 'src/domain/aspects/modules';
const EXPORT = /^export const (\w+): (readonly AspectModule\[\]|AspectModule) =/gm;

export function plugin() {
  const files = readdirSync(FOLDER).filter((f) => f.endsWith('.ts')).sort();
  const imports = [];
  const items = [];
  for (const file of files) {
    const found = [...readFileSync(path.join(FOLDER, file), 'utf8').matchAll(EXPORT)];
    if (found.length === 0) throw new Error(`${FOLDER}/${file} exports no AspectModule (export const <name>: AspectModule = ...)`);
    imports.push(`import { ${found.map((m) => m[1]).join(', ')} } from '../modules/${file.replace(/\.ts$/, '.js')}';`);
    for (const m of found) items.push(m[2] === 'AspectModule' ? `  ${m[1]},` : `  ...${m[1]},`);
  }
  return [
    "import type { AspectModule } from '../aspectModule.js';",
    ...imports,
    '',
    '/** Every aspect module, by file name (src/domain/aspects/modules/). */',
    'export const ASPECT_MODULES: readonly AspectModule[] = [',
    ...items,
    '];',
    '',
  ].join('\n');
}
