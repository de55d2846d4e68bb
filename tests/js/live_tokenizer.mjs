// Runs _static/live/tokenizer.js under Node for tests/test_live_tokenizer.py: reads
// {tokenizer, prepare, encode, decode, pieces, words} (a path and lists of inputs) as JSON on
// stdin, writes the module's answers (tokenizer_answers.mjs, which Chromium runs too) as
// JSON on stdout, with the time they took.
import {readFileSync} from "node:fs";
import * as tokenizer from "../../_static/live/tokenizer.js";
import {answers} from "./tokenizer_answers.mjs";

const job = JSON.parse(readFileSync(0, "utf-8"));
const start = performance.now();
const out = answers(tokenizer, JSON.parse(readFileSync(job.tokenizer, "utf-8")), job);
out.ms = performance.now() - start;
process.stdout.write(JSON.stringify(out));
