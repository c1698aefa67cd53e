PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck bench clean claude-code codex gemini-cli

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip==25.3
	$(BIN)/python -m pip install --quiet -e '.[dev]' -c constraints.txt
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/demo.py

lint: $(STAMP)
	$(BIN)/ruff check src tests bench examples
	$(BIN)/ruff format --check src tests bench examples
	$(BIN)/mypy src/charter

typecheck: $(STAMP)
	$(BIN)/mypy src/charter

# The pinned Claude Code CLI for tests/e2e (skipped, with a note, when Node is absent).
CLAUDE_CODE := tools/claude-code/node_modules/.bin/claude

$(CLAUDE_CODE): tools/claude-code/package.json tools/claude-code/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		cd tools/claude-code && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.bin/claude; \
	else echo "note: npm not found; the Claude Code end-to-end tests will be skipped"; fi

claude-code: $(CLAUDE_CODE)

# The pinned Codex CLI and Gemini CLI for tests/e2e (same rules; no install scripts run).
# Codex's binary comes as its optional per-platform package (~400 MB unpacked); Gemini
# CLI's optional packages (pty, keychain) are not needed without a terminal.
CODEX := tools/codex/node_modules/.bin/codex
GEMINI_CLI := tools/gemini-cli/node_modules/.bin/gemini

$(CODEX): tools/codex/package.json tools/codex/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		cd tools/codex && npm ci --no-audit --no-fund --loglevel=error --ignore-scripts && touch node_modules/.bin/codex; \
	else echo "note: npm not found; the Codex CLI end-to-end tests will be skipped"; fi

$(GEMINI_CLI): tools/gemini-cli/package.json tools/gemini-cli/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		cd tools/gemini-cli && npm ci --no-audit --no-fund --loglevel=error --ignore-scripts --omit=optional && touch node_modules/.bin/gemini; \
	else echo "note: npm not found; the Gemini CLI end-to-end tests will be skipped"; fi

codex: $(CODEX)

gemini-cli: $(GEMINI_CLI)

test: lint claude-code codex gemini-cli
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
