# Two commands do everything on a fresh machine (they create .venv and install first):
#   make book   build the website into _build/html
#   make test   unit tests + every notebook under nbval + a strict (0-warning) book build
# and, for people working on the book:
#   make lab                          JupyterLab from the same .venv
#   make notebooks [NB=chapters/x.ipynb]  re-execute chapters in place, in a fresh kernel
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
NB     ?= chapters/*.ipynb
JOBS   ?= 2

.PHONY: book test unit nbval book-check lab notebooks clean install

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $(STAMP)

book: $(STAMP)
	$(PY) scripts/build_book.py

test: $(STAMP)
	$(MAKE) --no-print-directory unit nbval book-check

unit: $(STAMP)
	$(PY) -m pytest -q -n $(JOBS) tests

nbval: $(STAMP)
	MPLBACKEND=Agg $(PY) -m pytest -q -n $(JOBS) --dist loadscope -p no:randomly \
	  --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg chapters

# The strict build, then static checks of the built site (scripts/check_site.py); both
# run and report even if the first fails.
book-check: $(STAMP)
	@$(PY) scripts/build_book.py --check; build=$$?; \
	  $(PY) scripts/check_site.py; site=$$?; \
	  test $$build -eq 0 && test $$site -eq 0

lab: $(STAMP)
	$(VENV)/bin/jupyter lab

notebooks: $(STAMP)
	$(PY) scripts/execute_notebooks.py $(NB)

clean:
	rm -rf _build .jupyter_cache
