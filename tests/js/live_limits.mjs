// Runs _static/live/limits.mjs under Node for tests/test_live_limits.py: reads a job
// ({texts, lines, profile, maxLen, checks}) as JSON on stdin, writes the module's answers
// (limits_answers.mjs, which Chromium runs too) as JSON on stdout.
import {readFileSync} from "node:fs";
import * as limits from "../../_static/live/limits.mjs";
import {editions} from "../../_static/live/messages.mjs";
import {answers} from "./limits_answers.mjs";

process.stdout.write(JSON.stringify(answers(limits, editions, JSON.parse(readFileSync(0, "utf-8")))));
