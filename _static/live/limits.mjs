// The one rule the page shares with `python -m illustrated translate`:
// illustrated/translator/limits.py,
// step by step (each step names the Python it mirrors). A text is cut into sentences; each
// is refused (no word, letters outside the Latin alphabet, too many tokens) or translated,
// with warnings when it lies outside what the model read in training (limits.json, written
// by scripts/export_onnx.py from illustrated.translator.limits.training_profile).
//
// The messages are templates with {name} fields, filled as Python's str.format fills them:
// messages.mjs holds them, the English word for word illustrated.translator.limits' constants.
// tests/test_live_limits.py (Node) and tests/site/browser/test_live_inputs.py (Chromium)
// check every function here against Python.

import { clean, PY_SPACE, pyStrip } from "./tokenizer.js";

// limits.SENTENCE_ENDS and FULL_WIDTH_ENDS, the same explicit lists.
export const SENTENCE_ENDS = ".!?\u2026\u203c\u2047\u2048\u2049"; // . ! ? … ‼ ⁇ ⁈ ⁉
export const FULL_WIDTH_ENDS = "\u3002\uff01\uff1f\uff61"; // 。 ！ ？ ｡
// limits._SENTENCE_END: `(?<=[SENTENCE_ENDS])\s+|(?<=[FULL_WIDTH_ENDS])\s*`, with Python's \s.
const SENTENCE_END = new RegExp(`(?<=[${SENTENCE_ENDS}])[${PY_SPACE}]+|` +
  `(?<=[${FULL_WIDTH_ENDS}])[${PY_SPACE}]*`, "gu");
// limits.ABBREVIATIONS: no sentence ends at the "." of these titles (M. Dupont).
export const ABBREVIATIONS = ["M", "MM", "Mme", "Mmes", "Mlle", "Mlles", "Dr", "Pr", "Me", "St",
  "Ste"];
// limits.NAMED: at most this many letters, words or symbols named in one message.
export const NAMED = 20;
// unicodedata.category(c).startswith("L"): a letter; `u` reads a text by code point.
const LETTER_RUNS = /\p{L}+/gu;
const LETTERS = /\p{L}/gu;

// limits.non_latin's Latin letter: ª, º, or the word LATIN in unicodedata.name(c).
// JavaScript has no character names, but it has scripts: the letters of the Latin script
// are those letters, less the ones below, whose names do not say LATIN (the modifier
// letters ʰ ᵃ …, the signs K Å, Ⅎ ⅎ Ↄ ⱽ). tests/test_live_limits.py (Node) and
// tests/site/browser/test_limits.py (Chromium) compare this with Python on every code point.
const LATIN_SCRIPT = /\p{Script=Latin}/u;
const LATIN_UNNAMED = new RegExp("[\\u02b0-\\u02b8\\u02e0-\\u02e4\\u1d2c-\\u1d5c\\u1d9b-\\u1dbe" +
  "\\u212a\\u212b\\u2132\\u214e\\u2183\\u2c7d\\ua770\\ua7f2-\\ua7f4\\ua7f8\\ua7f9\\uab5c-\\uab5f" +
  "\\uab69\\u{10780}-\\u{10785}\\u{10787}-\\u{107b0}\\u{107b2}-\\u{107ba}]", "u");

/** Whether limits.non_latin counts one letter as Latin. */
export function namedLatin(letter) {
  return LATIN_SCRIPT.test(letter) && !LATIN_UNNAMED.test(letter);
}

/** str.format for the messages: "{n} tokens" with {n: 70} -> "70 tokens". */
export function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, name) => String(values[name]));
}

/** limits.words: the words of `text` in lower case, runs of letters. */
export function words(text) {
  return text.toLowerCase().match(LETTER_RUNS) ?? []; // for c in text.lower(): ...
}

/** limits.split_sentences: cut after a mark of SENTENCE_ENDS followed by white space,
 *  unless it is the "." of one of ABBREVIATIONS, or after one of FULL_WIDTH_ENDS; stripped,
 *  empty ones dropped. */
export function splitSentences(line) {
  if (typeof line !== "string") throw new TypeError(`line must be a string, got ${typeof line}`);
  line = pyStrip(line); // line = line.strip()
  const sentences = [];
  let start = 0;
  for (const cut of line.matchAll(SENTENCE_END)) { // for cut in _SENTENCE_END.finditer(line)
    if (!endsWithAbbreviation(line.slice(0, cut.index))) {
      sentences.push(line.slice(start, cut.index));
      start = cut.index + cut[0].length; // cut.end()
    }
  }
  sentences.push(line.slice(start));
  return sentences.map(pyStrip).filter((s) => s); // [s.strip() for s in sentences if s.strip()]
}

/** limits._ends_with_abbreviation: whether `text` ends with one of ABBREVIATIONS and its
 *  ".", the abbreviation a whole run of letters ("Voici M." yes, "FM." no). */
function endsWithAbbreviation(text) {
  if (!text.endsWith(".")) return false;
  // head[letters:], the run of letters (category L*) that ends head = text[:-1]
  const run = text.slice(0, -1).match(/\p{L}*$/u)[0];
  return ABBREVIATIONS.includes(run);
}

/** The sentences of a text box, as the command reads stdin: each line (cut at "\n" only,
 *  as illustrated.commands.common.input_lines), then split_sentences. */
export function sentencesOf(text) {
  return text.split("\n").flatMap(splitSentences);
}

/** limits.non_latin: the letters outside the Latin script, each once, in order. */
export function nonLatin(text) {
  const found = (text.match(LETTERS) ?? []).filter((c) => !namedLatin(c));
  return [...new Set(found)]; // list(dict.fromkeys(found))
}

/** limits.numbers: the runs of decimal digits (category Nd), each once, in order. */
export function numbers(text) {
  return [...new Set(text.match(/\p{Nd}+/gu) ?? [])];
}

/** limits.symbols: the symbols and punctuation (P*, S*, No, Nl) of clean(text), each once,
 *  in order. */
export function symbols(text) {
  return [...new Set(clean(text).match(/[\p{P}\p{S}\p{No}\p{Nl}]/gu) ?? [])];
}

/** limits.listed: the first NAMED items joined by `sep`, then how many more (say.MORE). */
export function listed(items, say, sep = ", ") {
  const more = items.length > NAMED ? fill(say.MORE, { more: items.length - NAMED }) : "";
  return items.slice(0, NAMED).join(sep) + more;
}

/** TrainingProfile.from_json: limits.json as the page uses it. */
export function profileFromJSON(data) {
  return { pairs: data.pairs, maxWords: data.max_words, words: new Set(data.words),
           digits: data.digits, symbols: new Set(data.symbols),
           englishWords: new Set(data.english_words),
           englishSymbols: new Set(data.english_symbols) };
}

/** limits.check_sentence: {refusal, warnings} for one sentence, in the words of `say` (the
 *  edition's templates, messages.mjs's `limits`). `tokens`: its length in subword tokens,
 *  <bos> and <eos> included (ignored when it is refused before that check). */
export function checkSentence(sentence, tokens, profile, maxLen, say) {
  const found = words(sentence);
  if (!found.length) return { refusal: say.NO_WORDS, warnings: [] };
  const foreign = nonLatin(sentence);
  if (foreign.length) {
    return { refusal: fill(say.NOT_LATIN, { letters: listed(foreign, say, " ") }), warnings: [] };
  }
  if (tokens > maxLen) {
    return { refusal: fill(say.TOO_LONG, { n: tokens, max_len: maxLen }), warnings: [] };
  }
  const warnings = [];
  if (found.length > profile.maxWords) {
    warnings.push(fill(say.LONGER_THAN_TRAINING, { n: found.length, max_words: profile.maxWords }));
  }
  const unknown = found.filter((w) => !profile.words.has(w));
  if (2 * unknown.length > found.length) {
    warnings.push(fill(say.MOSTLY_UNKNOWN, { unknown: unknown.length, n: found.length }));
  } else if (unknown.length) { // elif unknown
    warnings.push(fill(say.UNKNOWN_WORDS, { words: listed([...new Set(unknown)], say) }));
  }
  if (numbers(sentence).length) { // f"{profile.pairs:,}": 70,489
    warnings.push(fill(say.DIGITS, { numbers: listed(numbers(sentence), say), n: profile.digits,
                                     pairs: profile.pairs.toLocaleString("en-US") }));
  }
  const unseen = symbols(sentence).filter((c) => !profile.symbols.has(c));
  if (unseen.length) warnings.push(fill(say.UNSEEN_SYMBOLS, { symbols: listed(unseen, say, " ") }));
  return { refusal: null, warnings };
}

/** limits.check_prompt: {refusal, warnings} for a prompt of the writer, trained on the
 *  English sentences of `profile`'s pairs: refused in another script; warned about when
 *  mostly French, and when it holds symbols no English training sentence has. */
export function checkPrompt(prompt, profile, say) {
  if (typeof prompt !== "string") throw new TypeError(`prompt must be a string, got ${typeof prompt}`);
  const foreign = nonLatin(prompt);
  if (foreign.length) {
    return { refusal: fill(say.NOT_ENGLISH, { letters: listed(foreign, say, " ") }), warnings: [] };
  }
  const warnings = [];
  const found = words(prompt);
  const french = found.filter((w) => profile.words.has(w) && !profile.englishWords.has(w));
  if (2 * french.length > found.length) {
    warnings.push(fill(say.FRENCH_PROMPT, {
      k: french.length, n: found.length, words: listed([...new Set(french)], say) }));
  }
  // unseen = [c for c in symbols(prompt) if c not in profile.english_symbols]
  const unseen = symbols(prompt).filter((c) => !profile.englishSymbols.has(c));
  if (unseen.length) {
    warnings.push(fill(say.UNSEEN_PROMPT_SYMBOLS, { symbols: listed(unseen, say, " ") }));
  }
  return { refusal: null, warnings };
}
