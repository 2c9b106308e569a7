// Prints one line with the size of a function bundle; run by NodejsFunction after bundling.
import { statSync } from 'node:fs';

const [name, bundlePath, mapPath] = process.argv.slice(2);
const kib = (path) => (statSync(path).size / 1024).toFixed(1);
const map = mapPath ? `, source map ${kib(mapPath)} KiB` : '';
process.stderr.write(`bundle ${name}: ${kib(bundlePath)} KiB${map}\n`);
