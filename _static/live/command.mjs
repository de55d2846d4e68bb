// The live writer's form as the command line it stands for,
//   python -m illustrated generate PROMPT --greedy --max-new-tokens N
//   python -m illustrated generate PROMPT --temperature T --top-k K --top-p P --seed S
//                                  --max-new-tokens N
// and the command's checks of it, in its order and words (each step names the Python it
// mirrors): argparse reads the options in that order (illustrated/commands/generate.py's parser,
// _cli.at_least), main() checks the sampling settings (sampling.check_sampling) and the
// seed (one sample: generate.SEED), and prompt_ids() the prompt's length. The words are templates in messages.mjs's
// `writer`, the English word for word the command's; tests/test_live_writer.py runs this
// file under Node against the command on odd fields.

import { clean, pyStrip as strip } from "./tokenizer.js";

/** str.format for the templates: "{n} tokens" with {n: 70} -> "70 tokens". */
export function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, name) => String(values[name]));
}

/** Python's repr() of a float: "-1.0", "0.5", "1e-05", "inf". */
export function pyFloat(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (Object.is(x, -0)) return "-0.0";
  const [mantissa, exp] = x.toExponential().split("e"); // the shortest digits, as repr
  const e = Number(exp);
  if (e < -4 || e >= 16) return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return Number.isInteger(x) ? x.toFixed(1) : String(x);
}

// generate.number and generate.whole_number (float and int): the number, or null where Python raises.
const asFloat = (text) => (strip(text) === "" || Number.isNaN(Number(strip(text)))
  ? null : Number(strip(text)));
const asInt = (text) => (/^[+-]?\d+$/.test(strip(text)) ? Number(strip(text)) : null);

/** The form's fields (strings, as the inputs hold them; `greedy` a boolean) -> {options}
 *  for sampling.mjs's generate, or {refusal} in the edition's `words`. */
export function checkOptions(fields, words) {
  // argparse's "invalid {kind} value", the kind (generate.number's name, or whole_number's)
  // in the edition's words
  const invalid = (option, kind, text) => fill(words.INVALID, { option, kind: words.KINDS[kind],
                                                                value: `'${text}'` });
  // argparse, option by option in the command line's order
  const o = { temperature: 0, topK: 0, topP: 1, seed: 0 }; // --greedy: temperature 0
  if (!fields.greedy) {
    o.temperature = asFloat(fields.temperature); // --temperature, type=number
    if (o.temperature === null) return { refusal: invalid("--temperature", "number", fields.temperature) };
    o.topK = asInt(fields.topK); // --top-k, type=whole_number
    if (o.topK === null) return { refusal: invalid("--top-k", "whole number", fields.topK) };
    o.topP = asFloat(fields.topP); // --top-p, type=number
    if (o.topP === null) return { refusal: invalid("--top-p", "number", fields.topP) };
    const seed = atLeast("--seed", fields.seed, 0, words); // --seed, type=at_least(0)
    if (seed.refusal) return seed;
    o.seed = seed.value;
  }
  const max = atLeast("--max-new-tokens", fields.maxNewTokens, 1, words);
  if (max.refusal) return max;
  o.maxNewTokens = max.value;
  // main(): check_sampling(temperature, args.top_k, args.top_p)
  if (!(o.temperature >= 0 && Number.isFinite(o.temperature))) {
    return { refusal: fill(words.TEMPERATURE, { value: pyFloat(o.temperature) }) };
  }
  if (o.topK < 0) return { refusal: fill(words.TOP_K, { value: o.topK }) };
  if (!(o.topP > 0 && o.topP <= 1)) return { refusal: fill(words.TOP_P, { value: pyFloat(o.topP) }) };
  // if args.seed + args.samples - 1 >= 2**32: SEED, the page writing one sample
  if (o.seed >= 2 ** 32) { // the seed as Python's int prints it: every digit (BigInt)
    return { refusal: fill(words.SEED, { seed: BigInt(strip(fields.seed)) }) };
  }
  return { options: o };
}

// _cli.at_least(low): an integer >= low.
function atLeast(option, text, low, words) {
  const value = asInt(text);
  if (value === null) return { refusal: fill(words.NOT_INTEGER, { option, value: `'${text}'` }) };
  if (value < low) return { refusal: fill(words.AT_LEAST, { option, low, value }) };
  return { value };
}

/** generate.prompt_ids: [bos, tokens...] of the cleaned prompt, without <eos>; [bos]
 *  for an empty one; {refusal} when it leaves no room for one new token. */
export function promptIds(tokenizer, text, maxLen, words) {
  const cleaned = clean(text); // text = clean(text)
  const ids = cleaned ? tokenizer.encode(cleaned).slice(0, -1) : [1]; // [bos]
  if (ids.length >= maxLen) {
    return { refusal: fill(words.TOO_LONG, { n: ids.length - 1, room: maxLen - 1 }) };
  }
  return { ids };
}
