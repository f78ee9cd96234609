// After `tsc -p tsconfig.build.json`: what the compiled server reads beside its
// modules (page templates, the stylesheet, SQL migrations) goes to dist/ too.
// Only changed files are written, so that a build with nothing to do writes
// nothing while another instance may be starting from dist/.
import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

function sync(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) sync(source, target);
    else if (!existsSync(target) || !readFileSync(source).equals(readFileSync(target))) cpSync(source, target);
  }
}

for (const dir of ['web/views', 'web/static', 'db/migrations']) sync(`src/${dir}`, `dist/${dir}`);
