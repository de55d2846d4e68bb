// The live page's tokenizer (_static/live/tokenizer.js) asked everything a job of
// tests/test_live_tokenizer.py asks: prepare, encode, decode, pieces and the pre-tokenizer's
// words, {"error": message} where it threw. One source for both places that ask: Node
// (tests/js/live_tokenizer.mjs) and Chromium (tests/site/browser/test_tokenizer.py, which
// imports this module from the served site's /_tests/js/ and passes the site's own module).
export function answers({prepare, Tokenizer}, tokenizerJSON, job) {
  const tok = Tokenizer.fromJSON(tokenizerJSON);
  const each = (inputs, f) => inputs.map((x) => {
    try {
      return f(x);
    } catch (err) {
      return {error: `${err.name}: ${err.message}`};
    }
  });
  return {
    prepare: each(job.prepare, prepare),
    encode: each(job.encode, (t) => tok.encode(t)),
    decode: each(job.decode, (ids) => tok.decode(ids)),
    pieces: each(job.pieces, (ids) => tok.pieces(ids)),
    words: each(job.words, (t) => tok.preTokenize(t).map((chars) => chars.join(""))),
  };
}
