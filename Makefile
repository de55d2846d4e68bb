# Two commands do everything on a fresh machine (they create .venv and install first):
#   make book   build the website into _build/html
#   make test   unit tests + every notebook under nbval, three times (three CPU kernel paths) +
#               a strict (0-warning) book build into _build/check/html + static checks of
#               that site + every page in headless Chromium; a summary line per stage
# and, for people working on the book:
#   make serve [PORT=8000]            the built book on http://127.0.0.1:8000/
#   make lab [ARGS=...]               JupyterLab from the same .venv (--allow-root as root)
#   make lab-check [ONLY=02_soft_lookup]  every notebook opened in JupyterLab in Chromium
#   make notebooks [NB=chapters/x.ipynb]  re-execute chapters and appendix notebooks in place, in a fresh kernel
#   make translations                 after an English edit: merge it into the Chinese catalogues
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
LAB_EXTENSION := $(VENV)/share/jupyter/labextensions/illustrated-lab
NO_GRAMMAR := $(VENV)/.without-rfc3987-syntax
NB     ?= chapters/*.ipynb appendix/*.ipynb
JOBS   ?= 2
PIP    := $(PY) -m pip install --quiet --disable-pip-version-check --progress-bar off \
	--no-warn-script-location --root-user-action ignore
# pip's own messages go to this log, shown only if the install fails.
INSTALL_LOG := $(VENV)/install.log
# The pages' JavaScript (scripts/vendor.py: npm ci, pinned by package-lock.json) installs
# beside pip, with the system's Python (it needs only the standard library): npm mostly
# waits for the network and the disk (22 s, 6 s of CPU), which the strict build then need
# not. Its messages go here; a build whose vendor step finds node_modules/ missing or
# older than the lockfile runs npm ci itself and says why the live pages cannot run.
VENDOR_LOG := $(VENV)/vendor.log
PORT   ?= 8000
ARGS   ?=
# The strict build's site (scripts/build_book.py --check), which the checks read.
CHECK_HTML := _build/check/html

# nbval: every chapter's (and appendix notebook's) committed outputs must come out again (--dist loadscope keeps
# each notebook in one worker, in order). --durations lists the slowest cells, to watch
# make test's time (CI: under 10 minutes, install included) as the book grows.
# -p tests.nbval_kernel: each notebook's kernel is forked from a process of the worker's
# that has imported torch once (tests/kernel_fork.py: 2.2 s of CPU a kernel before, 0.2 s
# now; the three stages side by side took 229 s with fresh kernels, 183 s forked; a fresh
# kernel each with KERNEL_FORK=0), and a kernel that dies on start-up (two workers'
# kernels racing for a port) is started again, up to three times; no cell has run then.
NBVAL := MPLBACKEND=Agg $(PY) -m pytest -q --durations=5 --dist loadscope -p no:randomly -p tests.nbval_kernel \
	--nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg chapters appendix
# The first path runs its kernels on torch's default threads (one per core), two workers:
# more threads than cores. torch's OpenMP threads spin while they wait for work, so two
# workers of two spinning threads starved each other (measured on 2 cores: nbval 257 s
# with two workers, 177 s with one); told to sleep instead (PASSIVE, no change to any
# result: the same threads split the same work), two workers took 99 s. The unit tests
# (two workers) likewise: 134 s spinning, 84 s passive. The other paths have one thread
# per kernel. Each stage alone: NBVAL_JOBS workers. make test runs the three side by side,
# one worker each: on 2 cores, 3 min 03 s (with fresh kernels 3 min 49 s side by side, and
# 4 min 18 s one after the other, two workers each).
NBVAL_JOBS ?= 2
PASSIVE := OMP_WAIT_POLICY=PASSIVE
# Two more CPU paths for nbval, so that the outputs are checked on the three kernel paths
# a reader's CPU may take: AVX2 kernels (most laptops; this CPU's AVX-512 ones gave other
# last bits, and a chapter printed other losses there) and torch's portable kernels
# (no vector instructions), each with one thread instead of several (another reduction
# order). The kernels nbval starts inherit these variables. No path's kernels draw a PNG
# (NBVAL_PIXELS=0, tests/nbval_kernel.py): nbval never compares pixels, and drawing them
# runs none of torch's kernels; every figure is still built and its text compared (0.27 s
# of CPU a figure, 100 figures a path: 27 CPU-seconds of the first path, which drew them).
# Every drawing function renders in the unit tests (tests/draw/test_api.py), and
# `make notebooks` draws every figure the pages show.
AVX2     := ATEN_CPU_CAPABILITY=avx2 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
PORTABLE := ATEN_CPU_CAPABILITY=default OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# Which kernels and how many threads torch uses under the current environment.
TORCH_PATH := $(PY) -c "import torch; print(torch.backends.cpu.get_cpu_capability(), \
	'kernels,', torch.get_num_threads(), 'thread(s)')"

.PHONY: translations checkpoint checkpoint-real checkpoint-lm bench book test unit nbval nbval-avx2 nbval-portable book-check browser-check lab lab-check serve notebooks clean install

install: $(STAMP) $(LAB_EXTENSION) $(NO_GRAMMAR)

# The book's JupyterLab extension (labextension/: glued numbers, citations, explorers and
# folded solutions as on the pages; plain JavaScript, no build step), linked into the
# environment's JupyterLab, which loads it from there (`jupyter labextension list`).
$(LAB_EXTENSION): | $(STAMP)
	@mkdir -p $(dir $@) && ln -sfn $(CURDIR)/labextension $@

# rfc3987-syntax (jsonschema's optional checker of the "iri" format, pulled in by
# jupyter-events' jsonschema[format-nongpl]) builds a Lark grammar whenever jsonschema is
# imported: 1.0 s of CPU in every process that imports nbformat, which every notebook does
# through myst_nb's glue (63 kernels in make test's three nbval stages). Nothing here checks
# that format; jsonschema skips it when the package is missing, and `pip check` is content.
# Uninstalled after every install (and in an environment installed before this rule).
$(NO_GRAMMAR): $(STAMP)
	@$(PY) -m pip uninstall --quiet --yes --disable-pip-version-check rfc3987-syntax
	@touch $@

# pip compiles every installed module to bytecode one file after another (half of a
# 101 s install on 2 cores): --no-compile. Python compiles a module the first time it is
# imported and keeps the bytecode (__pycache__/), so only what is imported is compiled
# (5,005 of the environment's 13,876 modules in a fresh clone's make test; compiling all of
# them, on both cores, took 19 s of a 56 s install, which now takes 49 s). Where PYTHONDONTWRITEBYTECODE is set, every process
# would compile its imports again (importing what the tests use: 16 s, not 6 s), so the
# commands make runs keep their bytecode whatever the environment says:
unexport PYTHONDONTWRITEBYTECODE
$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || { echo "Creating the virtual environment $(VENV) ..."; \
	  $(PYTHON) -m venv $(VENV); }
	@echo "Installing the pinned packages into $(VENV)" \
	  "(on the first run this takes about 2 minutes) ..."
	@start=$$(date +%s) && \
	  { $(PYTHON) scripts/vendor.py > $(VENDOR_LOG) 2>&1 & } && \
	  { $(PIP) --no-compile -r requirements.txt && \
	    $(PIP) --no-compile --no-deps --no-build-isolation -e . ; } > $(INSTALL_LOG) 2>&1 || \
	  { tail -n 30 $(INSTALL_LOG); echo "The install failed (the last lines of pip's" \
	    "messages above; all of them in $(INSTALL_LOG))."; wait; exit 1; } && \
	  wait && echo "Installed in $$(( $$(date +%s) - start )) s."
	@touch $(STAMP)

book: $(STAMP)
	@$(PY) scripts/build_book.py

# Every stage runs and reports, even after one has failed; scripts/run_tests.py ends with
# one line per stage and a verdict, and exits non-zero if any stage failed. Stages run side
# by side so as to keep both cores busy (each stage's CPU-seconds alone, measured in a
# cgroup on 2 cores: unit 210 on two workers before a 20 s test left it, book-check 91 on
# 0.9 cores in a fresh clone's run (its Chinese build 42 alone), each nbval path 100 to 125
# on one, browser-check 340 on two): the strict build (which browser-check
# needs) beside the first two nbval paths, then the unit tests beside the third, then the
# browser. A group waits for its last stage, so each group's stages should end close
# together. In a fresh clone's make test: the unit tests and the strict build side by side,
# then the three paths, then the browser, 566 s; the strict build beside the first path,
# then the unit tests beside the other two, 554 s (groups of 144, 212 and 198 s). Each
# nbval stage has one worker (NBVAL_JOBS above).
test: $(STAMP) $(LAB_EXTENSION) $(NO_GRAMMAR)
	@MAKE="$(MAKE)" NBVAL_JOBS=1 $(PY) scripts/run_tests.py book-check+nbval+nbval-avx2 \
	  unit+nbval-portable browser-check

# -rs: a skipped test prints why (one: the source documents are not in a clone).
unit: $(STAMP) $(LAB_EXTENSION) $(NO_GRAMMAR)
	@echo "== Unit tests (tests/) =="
	@$(PASSIVE) $(PY) -m pytest -q -rs --durations=5 -n $(JOBS) tests

# Every path draws the figures and explorers in English only, as a reader's run does. The
# Chinese renderings `make notebooks` adds go into the outputs' metadata, which nbval does
# not compare; the committed ones are checked by tests/draw/test_editions.py and the
# Chinese pages' tests. Drawing them again here took 17 s of the 96 s this stage took.
nbval: $(STAMP) $(NO_GRAMMAR)
	@echo "== Notebooks under nbval: torch on $$($(TORCH_PATH)) =="
	@$(PASSIVE) ILLUSTRATED_EDITIONS=en NBVAL_PIXELS=0 $(NBVAL) -n $(NBVAL_JOBS)

nbval-avx2: $(STAMP) $(NO_GRAMMAR)
	@echo "== Notebooks under nbval again: torch on $$($(AVX2) $(TORCH_PATH)) =="
	@$(AVX2) NBVAL_PIXELS=0 $(NBVAL) -n $(NBVAL_JOBS)

nbval-portable: $(STAMP) $(NO_GRAMMAR)
	@echo "== Notebooks under nbval again: torch on $$($(PORTABLE) $(TORCH_PATH)) =="
	@$(PORTABLE) NBVAL_PIXELS=0 $(NBVAL) -n $(NBVAL_JOBS)

# pytest for the tests of the built site (tests/site), without the plugins they do not use:
# each pytest process imported nbval's nbformat, whose jsonschema builds a grammar at import
# (2.3 s of CPU a process, five processes in browser-check), and anyio's and platformdirs'.
SITE_PYTEST := $(PY) -m pytest -q -p no:randomly -p no:nbval -p no:anyio -p no:platformdirs

# The strict build into $(CHECK_HTML) (the reader's _build/html and the execution cache
# are left alone), then the tests of that site's HTML (tests/site: each rule a test per
# page); both run and report even if the first fails.
book-check: $(STAMP)
	@echo "== Strict book build, then the tests of the built site's pages (tests/site) =="
	@$(PY) scripts/build_book.py --check; build=$$?; \
	  $(SITE_PYTEST) --site $(CHECK_HTML) tests/site; site=$$?; \
	  test $$build -eq 0 && test $$site -eq 0

# Every page of the strict build (book-check) opened in headless Chromium, served on
# 127.0.0.1, and a few from file:// (tests/site/browser: each rule a test per page, the
# live pages and explorers compared with the package); screenshots in _build/screenshots/
# (each page's first screen; `make browser-check FULL=1` for whole pages). BROWSER_JOBS
# test processes, each with its own Chromium (--dist loadscope: a page, or a module of
# interactive tests, stays in one process, tests/site/conftest.py; the longest start first).
# A test waits at times (fonts, MathJax, a model in WebAssembly, a click's transition), but
# the stage keeps two cores busy all the same (Chromium draws every page and runs every
# script on the CPU): on 2 cores, in a cgroup, 4 processes took 189 s and 368 s of CPU, 3
# took 173 s and 338 s, 2 took 174 s and 339 s. Without /usr/bin/chromium the tests are
# skipped; with CI set they fail instead.
BROWSER_JOBS ?= 3
browser-check: $(STAMP)
	@echo "== Every page in a real browser (headless Chromium, loopback only): tests/site/browser =="
	@test -f $(CHECK_HTML)/index.html || $(PY) scripts/build_book.py --check
	@$(PASSIVE) $(SITE_PYTEST) -rs -n $(BROWSER_JOBS) --dist loadscope --no-loadscope-reorder \
	  --site $(CHECK_HTML) tests/site/browser $(if $(FULL),--full-screenshots)

# The chapters' MyST (labels, {ref}, admonitions, exercises) is rendered by the
# jupyterlab-myst extension (requirements.txt), and what it cannot know of the book (glued
# numbers, citations, explorers, folded solutions) by the book's own (labextension/);
# tests/test_lab.py checks that both are installed and enabled, make lab-check opens every
# notebook in Chromium. Kernels talk over CurveZMQ, as scripts/execute_notebooks.py starts
# them (no "running over TCP without encryption").
# Jupyter refuses to run as root without --allow-root (containers run as root); more
# flags with ARGS, e.g. make lab ARGS="--no-browser --ip 0.0.0.0 --port 8889".
lab: $(STAMP) $(LAB_EXTENSION)
	$(VENV)/bin/jupyter lab --KernelManager.transport_encryption=auto \
	  $(if $(filter 0,$(shell id -u)),--allow-root) $(ARGS)

# Every notebook opened in JupyterLab in headless Chromium (tests/lab/): it reads as its
# page does, and opening and saving it changes nothing. About 3 minutes on 2 cores, so not
# part of `make test`; run it after changing labextension/, the jupyterlab or jupyterlab-myst
# pins, or a chapter's markup. One notebook: make lab-check ONLY=02_soft_lookup.
ONLY ?=
lab-check: $(STAMP) $(LAB_EXTENSION) $(NO_GRAMMAR)
	@$(PY) -m pytest -q -m lab tests/lab $(if $(ONLY),-k "$(ONLY)")

# The website (make book's _build/html; built first if missing) on http://127.0.0.1:$(PORT)/
# until Ctrl-C; another port with PORT=8001.
serve: $(STAMP)
	@test -f _build/html/index.html || $(PY) scripts/build_book.py
	@echo "Open http://127.0.0.1:$(PORT)/ in a browser (Ctrl-C stops the server)."
	@$(PY) -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

notebooks: $(STAMP)
	$(PY) scripts/execute_notebooks.py $(NB)

# The Chinese edition's catalogues (locales/zh_CN/LC_MESSAGES/, one .po per page) after an
# English edit: extract the English messages, merge them in (a new message arrives
# untranslated, a changed one "fuzzy" with the old Chinese as a draft), then say per page
# what is left to translate. CONTRIBUTING.md, "The Chinese edition".
translations: $(STAMP)
	@$(PY) scripts/translations.py update
	@$(PY) scripts/translations.py check

clean:
	rm -rf _build .jupyter_cache

# Speed against PyTorch, decoding and translation (issues 21, 30; not part of `make test`, about
# 10 minutes on 2 cores). Each benchmark writes benchmarks/results/<name>.json; the last
# step prints every figure with its target and writes benchmarks/results/summary.json.
# One thread by default: on a shared machine a descheduled OpenMP thread stalls every
# parallel kernel and swamps the ratios; `make bench BENCH_THREADS=2` for both cores.
BENCH_THREADS ?= 1
BENCH := OMP_NUM_THREADS=$(BENCH_THREADS) MKL_NUM_THREADS=$(BENCH_THREADS) $(PY)
bench: $(STAMP)
	OMP_NUM_THREADS=1 $(PY) benchmarks/overhead.py
	$(BENCH) benchmarks/attention.py --full
	$(BENCH) benchmarks/train_step.py --full
	$(BENCH) benchmarks/attention_memory.py
	$(BENCH) benchmarks/decode.py
	$(BENCH) benchmarks/translate.py
	$(BENCH) benchmarks/fused_equal.py
	OMP_NUM_THREADS=1 $(PY) benchmarks/real_train.py
	$(PY) benchmarks/summary.py

# The files the package ships (illustrated/shipped/, package data; illustrated.shipped names
# each), each rewritten by one target. The committed files make the chapters' numbers the
# same on every CPU; retrain only on purpose.
#
# The small trained translator that chapters 10 and 11 load (38 s on a quiet 2-core CPU,
# CONTRIBUTING.md).
checkpoint: $(STAMP)
	$(PY) -m illustrated train --out illustrated/shipped/toy_translator.pt

# The real translator of the chapter Real sentences (Tatoeba French -> English): the BPE
# tokenizer, then the laptop preset's steps, then its evaluation on the test set, which the
# chapter reads from chapters/data/tatoeba/evaluation.json: 16 min 55 s in all on a quiet
# 2-core CPU, 16 min of it training.
checkpoint-real: $(STAMP)
	$(PY) -m illustrated train --corpus tatoeba --new-tokenizer --state checkpoints/real-state.pt \
	  --out illustrated/shipped/tatoeba/translator.pt
	$(PY) -m illustrated evaluate --out chapters/data/tatoeba/evaluation.json

# The decoder-only model of the chapter The decoder alone (illustrated/shipped/tatoeba/writer.pt),
# trained on the English sentences of the same training split with the same tokenizer, on one
# thread as the shipped file was (447 s on a quiet 2-core CPU; this machine wrote the same
# weights bit for bit again). The file records its training time (wall and CPU seconds) and
# its development perplexity.
checkpoint-lm: $(STAMP)
	OMP_NUM_THREADS=1 $(PY) -m illustrated train-writer --out illustrated/shipped/tatoeba/writer.pt
