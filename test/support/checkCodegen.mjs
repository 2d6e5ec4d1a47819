// Fails when src/graphql/generated is stale: regenerates in memory from codegen.yml and
// compares with the committed files. Run by `npm run codegen:check` (part of npm test).
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
  console.error(`Generated GraphQL types are stale: ${stale.map((o) => o.filename).join(', ')}. Run \`npm run codegen\` and commit the result.`);
  process.exit(1);
}
console.log('generated GraphQL types are up to date');
