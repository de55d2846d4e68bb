# Two commands do everything on a fresh machine (they create .venv and install first):
#   make book   build the website into _build/html
#   make test   unit tests + every notebook under nbval, twice (two CPU kernel paths) +
#               a strict (0-warning) book build + static checks of the built site +
#               every page in headless Chromium
# and, for people working on the book:
#   make lab                          JupyterLab from the same .venv
#   make notebooks [NB=chapters/x.ipynb]  re-execute chapters and appendix notebooks in place, in a fresh kernel
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
NB     ?= chapters/*.ipynb appendix/*.ipynb
JOBS   ?= 2
PIP    := $(PY) -m pip install --quiet --disable-pip-version-check

# nbval: every chapter's (and appendix notebook's) committed outputs must come out again (--dist loadscope keeps
# each notebook in one worker, in order).
NBVAL := MPLBACKEND=Agg $(PY) -m pytest -q -n $(JOBS) --dist loadscope -p no:randomly \
	--nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg chapters appendix
# A second CPU path for nbval: torch's portable kernels instead of this CPU's vectorised
# ones (AVX2/AVX-512), and one thread instead of several (another reduction order). The
# kernels nbval starts inherit these variables.
PORTABLE := ATEN_CPU_CAPABILITY=default OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
# Which kernels and how many threads torch uses under the current environment.
TORCH_PATH := $(PY) -c "import torch; print(torch.backends.cpu.get_cpu_capability(), \
	'kernels,', torch.get_num_threads(), 'thread(s)')"

.PHONY: checkpoint checkpoint-real bench book test unit nbval nbval-portable book-check browser-check lab notebooks clean install

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || { echo "Creating the virtual environment $(VENV) ..."; \
	  $(PYTHON) -m venv $(VENV); }
	@echo "Installing the pinned packages into $(VENV)" \
	  "(on the first run this takes about 2 minutes) ..."
	@start=$$(date +%s) && \
	  $(PIP) -r requirements.txt && \
	  $(PIP) --no-deps --no-build-isolation -e . && \
	  echo "Installed in $$(( $$(date +%s) - start )) s."
	@touch $(STAMP)

book: $(STAMP)
	@$(PY) scripts/build_book.py

# -k: every stage runs and reports, even after one has failed (make still exits non-zero).
test: $(STAMP)
	@$(MAKE) --no-print-directory -k unit nbval nbval-portable book-check browser-check

unit: $(STAMP)
	@echo "== Unit tests (tests/) =="
	@$(PY) -m pytest -q -n $(JOBS) tests

nbval: $(STAMP)
	@echo "== Notebooks under nbval: torch on $$($(TORCH_PATH)) =="
	@$(NBVAL)

nbval-portable: $(STAMP)
	@echo "== Notebooks under nbval again: torch on $$($(PORTABLE) $(TORCH_PATH)) =="
	@$(PORTABLE) $(NBVAL)

# The strict build, then static checks of the built site (scripts/check_site.py); both
# run and report even if the first fails.
book-check: $(STAMP)
	@echo "== Strict book build, then static checks of the site =="
	@$(PY) scripts/build_book.py --check; build=$$?; \
	  $(PY) scripts/check_site.py; site=$$?; \
	  test $$build -eq 0 && test $$site -eq 0

# Every page of the strict build (book-check) opened in headless Chromium, served on
# 127.0.0.1 (scripts/check_browser.py); screenshots in _build/screenshots/. Without
# /usr/bin/chromium it prints "browser check SKIPPED"; with CI set it fails instead.
browser-check: $(STAMP)
	@echo "== Every page in a real browser (headless Chromium, loopback only) =="
	@test -f _build/html/index.html || $(PY) scripts/build_book.py --check
	@$(PY) scripts/check_browser.py

lab: $(STAMP)
	$(VENV)/bin/jupyter lab

notebooks: $(STAMP)
	$(PY) scripts/execute_notebooks.py $(NB)

clean:
	rm -rf _build .jupyter_cache

# Speed against PyTorch, decoding and translation (issue 21; not part of `make test`, about
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
	OMP_NUM_THREADS=1 $(PY) benchmarks/real_train.py
	$(PY) benchmarks/summary.py

# The small trained translator that chapters 10 and 11 load (about 40 s on 2 cores). The
# committed file makes the chapters' numbers the same on every CPU; retrain only on purpose.
checkpoint: $(STAMP)
	$(PY) -m illustrated.train --out chapters/data/translator.pt

# The real translator of the chapter Real sentences (Tatoeba French -> English): the BPE
# tokenizer, then a fixed number of steps (about 10 minutes on a quiet 2-core CPU), scored
# on the test set. The committed files make the chapter's numbers the same on every CPU.
checkpoint-real: $(STAMP)
	$(PY) -m illustrated.train --corpus tatoeba --new-tokenizer --state checkpoints/real-state.pt \
	  --out chapters/data/tatoeba/translator.pt
