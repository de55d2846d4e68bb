// Runs _static/live/limits.mjs under Node for tests/test_live_limits.py: reads a job
// ({texts, lines, profile, maxLen, checks}) as JSON on stdin, writes the module's answers
// as JSON on stdout. scripts/browser_checks/limits.py asks Chromium the same (LIMITS_JS).
import {readFileSync} from "node:fs";
import * as limits from "../../_static/live/limits.mjs";
import {editions} from "../../_static/live/messages.mjs";

const job = JSON.parse(readFileSync(0, "utf-8"));
const profile = limits.profileFromJSON(job.profile);
// Every code point's class, run-length coded: [first code point, class] at each change;
// 0 not a letter, 1 a letter named LATIN, 2 another letter.
const classes = [];
for (let c = 0; c <= 0x10ffff; c++) {
  const ch = String.fromCodePoint(c);
  const k = !/\p{L}/u.test(ch) ? 0 : limits.namedLatin(ch) ? 1 : 2;
  if (!classes.length || classes[classes.length - 1][1] !== k) classes.push([c, k]);
}
process.stdout.write(JSON.stringify({
  sentencesOf: job.texts.map(limits.sentencesOf),
  splitSentences: job.lines.map(limits.splitSentences),
  words: job.texts.map(limits.words),
  nonLatin: job.texts.map(limits.nonLatin),
  verdicts: Object.fromEntries(Object.entries(editions).map(([lang, say]) => [lang,
    job.checks.map(([s, pieces]) => limits.checkSentence(s, pieces, profile, job.maxLen,
                                                         say.limits))])),
  templates: Object.fromEntries(Object.entries(editions).map(([lang, say]) => [lang, say.limits])),
  classes,
}));
