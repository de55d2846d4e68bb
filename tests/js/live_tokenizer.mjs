// Runs _static/live/tokenizer.js under Node for tests/test_live_tokenizer.py: reads
// {tokenizer, prepare, encode, decode, pieces, words} (a path and lists of inputs) as JSON on
// stdin, writes the module's answers as JSON on stdout, {"error": message} where it threw.
import {readFileSync} from "node:fs";
import {prepare, Tokenizer} from "../../_static/live/tokenizer.js";

const job = JSON.parse(readFileSync(0, "utf-8"));
const tok = Tokenizer.fromJSON(JSON.parse(readFileSync(job.tokenizer, "utf-8")));
const each = (inputs, f) => inputs.map((x) => {
  try {
    return f(x);
  } catch (err) {
    return {error: `${err.name}: ${err.message}`};
  }
});
const start = performance.now();
const out = {
  prepare: each(job.prepare, prepare),
  encode: each(job.encode, (t) => tok.encode(t)),
  decode: each(job.decode, (ids) => tok.decode(ids)),
  pieces: each(job.pieces, (ids) => tok.pieces(ids)),
  words: each(job.words, (t) => tok.preTokenize(t).map((chars) => chars.join(""))),
};
out.ms = performance.now() - start;
process.stdout.write(JSON.stringify(out));
