// The live page's rule (_static/live/limits.mjs and messages.mjs) asked everything a job of
// tests/test_live_limits.py asks: sentences, words, non-Latin letters, numbers, symbols,
// verdicts of sentences and of the writer's prompts in both
// editions' words, and every code point's letter class. One source for both places that ask:
// Node (tests/js/live_limits.mjs) and Chromium (tests/site/browser/test_limits.py, which
// imports this module from the served site's /_tests/js/ and passes the site's own modules).
export function answers(limits, editions, job) {
  const profile = limits.profileFromJSON(job.profile);
  // Every code point's class, run-length coded: [first code point, class] at each change;
  // 0 not a letter, 1 a letter named LATIN, 2 another letter.
  const classes = [];
  for (let c = 0; c <= 0x10ffff; c++) {
    const ch = String.fromCodePoint(c);
    const k = !/\p{L}/u.test(ch) ? 0 : limits.namedLatin(ch) ? 1 : 2;
    if (!classes.length || classes[classes.length - 1][1] !== k) classes.push([c, k]);
  }
  const each = (f) => Object.fromEntries(Object.entries(editions).map(([l, say]) => [l, f(say)]));
  return {
    sentencesOf: job.texts.map(limits.sentencesOf),
    splitSentences: job.lines.map(limits.splitSentences),
    words: job.texts.map(limits.words),
    nonLatin: job.texts.map(limits.nonLatin),
    numbers: job.texts.map(limits.numbers),
    symbols: job.texts.map(limits.symbols),
    verdicts: each((say) => job.checks.map(([s, pieces]) =>
      limits.checkSentence(s, pieces, profile, job.maxLen, say.limits))),
    prompts: each((say) => job.prompts.map((p) => limits.checkPrompt(p, profile, say.limits))),
    templates: each((say) => say.limits),
    classes,
  };
}
