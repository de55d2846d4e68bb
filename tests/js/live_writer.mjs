// Runs _static/live/command.mjs under Node for tests/test_live_writer.py: reads a job
// ({fields, prompts, floats, tokenizer, maxLen}) as JSON on stdin, writes the module's
// answers as JSON on stdout, in both editions' words.
import {readFileSync} from "node:fs";
import * as command from "../../_static/live/command.mjs";
import {editions} from "../../_static/live/messages.mjs";
import {Tokenizer} from "../../_static/live/tokenizer.js";

const job = JSON.parse(readFileSync(0, "utf-8"));
const tokenizer = Tokenizer.fromJSON(JSON.parse(readFileSync(job.tokenizer, "utf-8")));
const each = (f) => Object.fromEntries(Object.entries(editions).map(([lang, say]) =>
  [lang, f(say.writer)]));
process.stdout.write(JSON.stringify({
  options: each((words) => job.fields.map((f) => command.checkOptions(f, words))),
  prompts: each((words) => job.prompts.map((p) => command.promptIds(tokenizer, p, job.maxLen,
                                                                    words))),
  // repr() of each float: "inf", "-inf" as JavaScript writes them
  floats: job.floats.map((s) => command.pyFloat(Number(s.replace("inf", "Infinity")))),
  templates: each((words) => ({TOO_LONG: words.TOO_LONG, SEED: words.SEED,
                               TEMPERATURE: words.TEMPERATURE, TOP_K: words.TOP_K,
                               TOP_P: words.TOP_P})),
}));
