// Fails when a generated file of codegen.yml (the GraphQL types and operations, the aspect
// modules' list) is stale: regenerates in memory from codegen.yml and compares with the
// committed files. Run by `npm run codegen:check` (part of npm test).
import { readFileSync } from 'node:fs';
import { generate } from '@graphql-codegen/cli';
import { parse } from 'yaml';

const config = parse(readFileSync('codegen.yml', 'utf8'));
const outputs = await generate({ ...config, silent: true }, false);
const stale = outputs.filter((o) => {
  let current = '';
  try {
    current = readFileSync(o.filename, 'utf8');
  } catch {
    return true;
  }
  return current !== o.content;
});
if (stale.length > 0) {
  console.error(`Generated files are stale: ${stale.map((o) => o.filename).join(', ')}. Run \`npm run codegen\` and commit the result.`);
  process.exit(1);
}
console.log('generated files are up to date');
