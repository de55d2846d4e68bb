// Runs the book's lab extension (labextension/static/) under Node for tests/test_lab.py:
// reads a job ({glue: [[text, spec], ...], notebooks: [[{type, source}, ...], ...],
// cites: [[role, key], ...], references}) as JSON on stdin, writes what the extension
// shows as JSON on stdout: each glued value formatted (or the error), each notebook's
// solution cells, each citation's words.
import {readFileSync} from "node:fs";
import {formatPlainText} from "../../labextension/static/format.mjs";
import {citeText, inSolution} from "../../labextension/static/plugin.mjs";

const job = JSON.parse(readFileSync(0, "utf-8"));
const attempt = f => { try { return f(); } catch (err) { return `Error: ${err.message}`; } };
process.stdout.write(JSON.stringify({
  glue: job.glue.map(([text, spec]) => attempt(() => formatPlainText(text, spec))),
  solutions: job.notebooks.map(cells => inSolution(cells)
    .flatMap((inside, index) => inside ? [index] : [])),
  cites: job.cites.map(([role, key]) => citeText(role, key, job.references)),
}));
