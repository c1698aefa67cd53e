"""Extractors on small real files: symbols with exact spans, imports, front-end facts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from charter.graph import docs, extract_js, extract_python, frontend

PY = b'''import os
from .models import Invoice as Inv
from ..core import util


@decorator
def total(items):
    return sum(i.amount for i in items)


class Ledger(Base):
    """A ledger."""

    def add(self, entry):
        self.entries.append(entry)
        return total(self.entries)

    def _private(self):
        pass
'''


def test_python_symbols_spans_and_imports() -> None:
    out = extract_python.extract(PY)
    spans = {s["qualname"]: (s["kind"], s["line_start"], s["line_end"]) for s in out["symbols"]}
    assert spans == {
        "total": ("function", 6, 8),  # decorator line included
        "Ledger": ("class", 11, 19),
        "Ledger.add": ("method", 14, 16),
        "Ledger._private": ("method", 18, 19),
    }
    modules = {(i["module"], i["level"], tuple(i["names"])) for i in out["imports"]}
    assert modules == {("os", 0, ()), ("models", 1, ("Invoice",)), ("core", 2, ("util",))}
    assert "total" in out["calls"] and "append" in out["calls"]
    assert "Base" in out["refs"]
    assert not out["parse_errors"]


def test_python_unparseable_source_keeps_what_it_can() -> None:
    out = extract_python.extract(b"def ok():\n    return 1\n\ndef broken(:\n")
    assert out["parse_errors"]
    assert any(s["name"] == "ok" for s in out["symbols"])


TSX = b"""import { useState } from 'react';
import { Button } from './Button';
import styles from './card.css';

export interface CardProps {
  title: string;
}

export function Card({ title }: CardProps) {
  const [open, setOpen] = useState(false);
  return <Button onClick={() => setOpen(!open)}>{title}</Button>;
}

export const Badge = () => <span />;

export default class Panel {
  render() {
    return null;
  }
}
"""


def test_tsx_symbols_exports_and_jsx() -> None:
    out = extract_js.extract(TSX, "tsx")
    spans = {
        s["qualname"]: (s["kind"], s["line_start"], s["line_end"], s["exported"])
        for s in out["symbols"]
    }
    assert spans["CardProps"] == ("interface", 5, 7, True)
    assert spans["Card"] == ("function", 9, 12, True)
    assert spans["Badge"] == ("function", 14, 14, True)
    assert spans["Panel"] == ("class", 16, 20, True)
    assert spans["Panel.render"] == ("method", 17, 19, True)
    assert [i["module"] for i in out["imports"]] == ["./Button", "./card.css", "react"]
    assert "Button" in out["refs"] and "useState" in out["calls"]


def test_javascript_require_and_functions() -> None:
    src = b"const fs = require('fs');\nfunction load(p) {\n  return fs.readFileSync(p);\n}\n"
    out = extract_js.extract(src, "javascript")
    assert [(s["name"], s["line_start"], s["line_end"]) for s in out["symbols"]] == [("load", 2, 4)]
    assert [i["module"] for i in out["imports"]] == ["fs"]


def test_markdown_sections_and_mentions() -> None:
    text = (
        "# Title\n\nIntro `Ledger.add`.\n\n## Storage\nSee backend/app/db.py\n\n"
        "```\n# not a heading\n```\n## Next\nend\n"
    )
    out = docs.extract(text)
    assert [(s["title"], s["line_start"], s["line_end"]) for s in out["sections"]] == [
        ("Title", 1, 13),
        ("Storage", 5, 10),
        ("Next", 11, 13),
    ]
    assert out["sections"][1]["mentions"] == ["backend/app/db.py"]
    assert "Ledger.add" in out["sections"][0]["identifiers"]


def test_frontend_routes_and_tokens() -> None:
    assert frontend.file_route("web/app/(shop)/invoices/[id]/page.tsx") == (
        "/invoices/[id]",
        "next-app",
    )
    assert frontend.file_route("web/app/page.tsx") == ("/", "next-app")
    assert frontend.file_route("pages/settings/index.jsx") == ("/settings", "next-pages")
    assert frontend.file_route("pages/_app.tsx") is None
    assert frontend.file_route("pages/api/x.ts") is None
    routes = frontend.code_routes('<Routes>\n  <Route path="/users/:id" element={<U />} />\n')
    assert routes == [("/users/:id", 2)]
    css = ":root {\n  --brand: #0a84ff;\n  --space-2: 8px;\n}\n.a { color: var(--brand); }\n"
    assert frontend.css_tokens(css) == [("--brand", "#0a84ff", 2), ("--space-2", "8px", 3)]
    assert frontend.css_uses(css) == ["--brand"]
    tw = (
        "module.exports = { theme: { extend: { colors: {\n  primary: '#111',\n"
        "  accent: { 500: '#f00' },\n} } } }"
    )
    names = [t[0] for t in frontend.tailwind_tokens(tw)]
    assert names == ["colors.primary", "colors.accent"]


def test_a_patch_file_is_read_as_text(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A project that carries patches for its dependencies (Electron's 255 Chromium
    patches) had them at file level with no words: a task about what a patch changes
    could not find it."""
    from charter.graph.extract import extract_file

    patch = tmp_path / "patches" / "chromium" / "fix_scriptstate_lookup.patch"
    patch.parent.mkdir(parents=True)
    patch.write_text(
        "From: Dev <dev@example.org>\nSubject: fix: harden ScriptState lookup\n\n"
        "--- a/third_party/blink/script_state.cc\n+++ b/third_party/blink/script_state.cc\n"
        "@@ -1,2 +1,2 @@\n-  return MaybeFrom(context);\n+  return From(context);\n"
    )
    record = extract_file(tmp_path, "patches/chromium/fix_scriptstate_lookup.patch", 1_000_000)
    assert record["language"] == "text"
    assert "scriptstate" in {t.lower() for t in record["tf"]}


def test_term_counts_are_the_counted_terms_in_their_order() -> None:
    """A file's term frequencies are counted per distinct identifier (a file's thousand
    ``self``s split once): the counts and their key order (snapshot bytes depend on it)
    are those of counting every term."""
    from collections import Counter
    from pathlib import Path

    from charter.graph.text import code_terms, term_counts

    texts = [p.read_text(encoding="utf-8") for p in sorted(Path("src/charter/graph").glob("*.py"))]
    texts.append("get_user foo getUser get FOO_BAR self self self.get_user()")
    for text in texts:
        expected = dict(Counter(code_terms(text)))
        got = term_counts(text)
        assert got == expected and list(got) == list(expected)


def test_page_templates_are_words_in_the_graph_and_ranked_for_what_they_show(
    repo: Path, run_charter: Any
) -> None:
    """Rails views (``.html.erb``), Phoenix HEEx and Jinja/Django templates had no words:
    a task naming what a page shows ("the past due banner") could reach the page only
    through a controller that never says it."""
    from tests.conftest import task_context_paths, write

    write(
        repo,
        "app/controllers/invoices_controller.rb",
        "class InvoicesController < ApplicationController\n  def show\n"
        "    @invoice = Invoice.find(params[:id])\n  end\nend\n",
    )
    write(
        repo,
        "app/views/invoices/show.html.erb",
        '<div class="invoice">\n  <% if @invoice.overdue? %>\n'
        '    <p class="banner">Past due: settle before the grace period ends</p>\n'
        "  <% end %>\n</div>\n",
    )
    write(repo, "lib/shop_web/live/cart.html.heex", "<p>Your basket is empty</p>\n")
    write(repo, "templates/emails/welcome.jinja2", "Hello {{ name }}, welcome aboard\n")
    write(repo, "web/src/components/CartDrawer.vue", "<template><p>Checkout now</p></template>\n")
    paths = task_context_paths(run_charter, repo, "the past due banner shows on paid invoices")
    assert paths[0] == "app/views/invoices/show.html.erb", paths
    from charter.graph.extract import extract_file

    for rel, word in (
        ("lib/shop_web/live/cart.html.heex", "basket"),
        ("templates/emails/welcome.jinja2", "aboard"),
        ("web/src/components/CartDrawer.vue", "checkout"),
    ):
        record = extract_file(repo, rel, 1_000_000)
        assert record["language"] == "template" and word in record["tf"], rel


def test_page_templates_are_searched(repo: Path) -> None:
    from charter.config import Project
    from charter.embed.registry import get_embedder
    from charter.search.indexer import Indexer
    from tests.conftest import write
    from tests.search_support import open_engine

    root = repo
    write(root, "charter.toml", '[search.modes.code]\nsearch_paths = ["**"]\n')
    write(
        root,
        "app/views/invoices/show.html.erb",
        "<p>Past due: settle before the grace period</p>\n",
    )
    write(root, "web/src/app/cart/cart.component.html", "<h2>Your basket is empty</h2>\n")
    report = Indexer(Project.load(root), get_embedder("hash")).run()
    assert {"app/views/invoices/show.html.erb", "web/src/app/cart/cart.component.html"} <= set(
        report.indexed
    ), report.skipped
    with open_engine(root) as engine:
        found = engine.search("basket is empty", mode="code", log=False)
    assert found.results[0].path == "web/src/app/cart/cart.component.html"


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("lua/finder/sorter_spec.lua", True),  # busted, beside the code
        ("app/models/user_spec.rb", True),
        ("src/cart_spec.js", True),
        ("integration_test/app_test.dart", True),  # Flutter
        ("app/integration_test/login.dart", True),
        ("specs/checkout.ts", True),
        ("pkg/store/store_test.go", True),
        ("tests/test_models.py", True),
        ("shop/orders/tests.py", True),  # a Django app's tests
        ("src/parser/tests.rs", True),
        ("shop/orders/testing_utils.py", False),
        ("lua/finder/spectrum.lua", False),
        ("lib/inspect.rb", False),
        ("app/models/spec_helper_methods.rb", False),
        ("lib/src/testimonial.dart", False),
        # the compound markers test runners are configured with
        ("web/src/features/traces/sort.clienttest.ts", True),
        ("web/src/server/api/routers/traces.servertest.tsx", True),
        ("packages/core/e2e/order.e2e-spec.ts", True),  # NestJS
        ("src/types/api.test-d.ts", True),  # vitest type tests
        ("Shop.UnitTests.cs", True),
        ("schemas/api.latest.ts", False),
        ("src/contest.ts", False),
        ("apps/ios/Foo.podspec.json", False),
        (".spectral.yaml", False),
    ],
)
def test_test_files_by_each_ecosystem_s_conventions(path: str, test: bool) -> None:
    from charter.graph.extract import is_test_path

    assert is_test_path(path) is test


CART_VUE = """<template>
  <CartLine v-for="line in lines" :key="line.id" :line="line" />
  <p>{{ formatTotal(total) }}</p>
</template>

<script setup lang="ts">
import CartLine from './CartLine.vue'
import { useCart } from '@/composables/useCart'

const { lines, total } = useCart()

function formatTotal(cents: number): string {
  return (cents / 100).toFixed(2)
}
</script>
"""


def test_a_component_s_script_gives_its_symbols_and_imports_at_its_lines() -> None:
    from charter.graph import extract_sfc

    out = extract_sfc.extract(CART_VUE)
    spans = {s["qualname"]: s["line_start"] for s in out["symbols"]}
    assert spans["formatTotal"] == 12  # the component file's own line
    assert [i["module"] for i in out["imports"]] == ["./CartLine.vue", "@/composables/useCart"]
    assert "useCart" in out["calls"]
    assert "language" not in out
    svelte = '<script context="module">\nexport const ssr = false\n</script>\n<h1>Hi</h1>\n'
    assert [s["qualname"] for s in extract_sfc.extract(svelte)["symbols"]] == ["ssr"]
    assert extract_sfc.extract("<template><p>static</p></template>\n") == {}
    astro = (
        "---\nimport Card from '../components/Card.astro'\n"
        "const banner = '<script>not a tag</script>'\n"
        "function priceOf(plan: string): number {\n  return plan.length\n}\n---\n"
        "<Card>{priceOf('pro')}</Card>\n<script>\nfunction toggleMenu() {}\n</script>\n"
    )
    out = extract_sfc.extract(astro, "src/pages/pricing.astro")
    assert [i["module"] for i in out["imports"]] == ["../components/Card.astro"]
    spans = {s["qualname"]: s["line_start"] for s in out["symbols"]}
    assert spans["priceOf"] == 4 and spans["toggleMenu"] == 10, spans


def test_components_link_to_what_their_scripts_import_through_an_alias(repo: Path) -> None:
    """Vite's ``@`` points wherever the build says (Laravel apps: ``resources/js``); the
    alias resolves by the path's tail, nearest the importer when several files match."""
    import json

    from charter.config import Project
    from charter.graph.api import capsule
    from charter.graph.build import build_graph
    from tests.conftest import write

    write(repo, "resources/js/components/Cart.vue", CART_VUE)
    write(repo, "resources/js/components/CartLine.vue", "<template><li /></template>\n")
    write(
        repo,
        "resources/js/composables/useCart.ts",
        "export function useCart() {\n  return { lines: [], total: 0 }\n}\n",
    )
    write(repo, "docs/composables/useCart.ts", "export const useCart = 1\n")  # a namesake
    write(repo, "app/Models/Cart.php", "<?php\nnamespace App\\Models;\nclass Cart {}\n")
    graph = build_graph(Project.load(repo))
    edges = {(e.source, e.target) for e in graph.edges if e.relation == "imports"}
    cart = "src:resources/js/components/Cart.vue"
    assert (cart, "src:resources/js/components/CartLine.vue") in edges
    assert (cart, "src:resources/js/composables/useCart.ts") in edges
    assert (cart, "src:docs/composables/useCart.ts") not in edges
    assert graph.nodes[cart].attrs["language"] == "template"
    modules = json.dumps(capsule(Project.load(repo), graph, write=False)["module_map"])
    assert "formatTotal" not in modules


@pytest.mark.parametrize(
    ("path", "example"),
    [
        ("web/src/components/table/DataTable.stories.tsx", True),  # Storybook
        ("src/ui/Button.story.ts", True),
        ("docs/usage/quickstart.py", True),
        ("src/ui/story.ts", False),
        ("src/stories/publish.ts", False),  # a feature named stories
        ("src/ui/Button.tsx", False),
    ],
)
def test_stories_and_documentation_code_show_the_project_in_use(path: str, example: bool) -> None:
    from charter.graph.extract import is_example_path

    assert is_example_path(path) is example


def test_nextflow_processes_and_configs_have_words(repo: Path) -> None:
    """A Nextflow pipeline's processes (``modules/local/x.nf``) and its configuration
    (``nextflow.config``, ``conf/modules.config``) had no words in the graph, so a task
    could find them only by their path: they are read as text, as Groovy is."""
    from charter.graph.extract import extract_file
    from tests.conftest import write

    write(repo, "modules/local/phenotype.nf", "process PHENOTYPE {\n  '--threshold ${t}'\n}\n")
    write(repo, "conf/modules.config", "process { withName: PHENOTYPE { publishDir = 'x' } }\n")
    for rel, word in (
        ("modules/local/phenotype.nf", "threshold"),
        ("conf/modules.config", "publishdir"),
    ):
        record = extract_file(repo, rel, 1_000_000)
        assert record["language"] == "text" and word in (record.get("tf") or {}), (rel, record)


def test_sources_read_as_text_are_weighed_as_code_not_documents(
    repo: Path, run_charter: Any
) -> None:
    """A Nextflow pipeline's processes (``.nf``) and a Haskell module have no parser here,
    so they are words; they were weighed as documents (0.6 of a source file's seed), and
    "pass the marker threshold to the phenotype process" ranked the user guide that
    describes the option above the process that takes it. Like page templates, sources
    read as text are the project's code."""
    from tests.conftest import task_context_paths, write

    write(
        repo,
        "modules/local/phenotype.nf",
        "process PHENOTYPE {\n  input:\n  tuple val(meta), path(cells)\n  script:\n"
        '  "phenotype.py --cells ${cells} --threshold ${params.marker_threshold}"\n}\n',
    )
    write(
        repo,
        "docs/usage.md",
        "# Usage\n\nThe phenotype step assigns phenotypes from marker intensities. "
        "Pass --marker_threshold to change the marker threshold the phenotype process "
        "uses; the threshold applies to every marker.\n",
    )
    write(
        repo, "src/Quota.hs", "module Quota where\n\nquotaLimit :: Int -> Int\nquotaLimit n = n\n"
    )
    write(
        repo,
        "README.md",
        "# Quotas\n\nThe quota limit is read by the quota module; raise the quota limit "
        "for large teams, the quota module clamps it.\n",
    )
    task = "pass the marker threshold to the phenotype process"
    assert task_context_paths(run_charter, repo, task)[0] == "modules/local/phenotype.nf"
    task = "the quota module clamps the quota limit too early"
    assert task_context_paths(run_charter, repo, task)[0] == "src/Quota.hs"


def test_a_file_the_grammar_cannot_finish_parsing_is_kept_at_file_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tens of thousands of lines of nested brackets sent tree-sitter-kotlin's error
    recovery past two minutes and a gigabyte (``graph build`` and every ``task-context``
    waited on it); the parse is now cancelled at ``PARSE_SECONDS`` and the file kept at
    file level, while an ordinary file still parses."""
    import time

    from charter.graph import parsers
    from charter.graph.extract import extract_file

    monkeypatch.setattr(parsers, "PARSE_SECONDS", 0.5, raising=False)
    depth = 30_000
    (tmp_path / "Deep.kt").write_text("fun a(\n" + "(\n" * depth + ")\n" * depth + ")\n")
    (tmp_path / "Fine.kt").write_text("package a.b\n\nclass Track {\n    fun crop() = 1\n}\n")
    started = time.monotonic()
    deep = extract_file(tmp_path, "Deep.kt", 1_000_000)
    assert time.monotonic() - started < 5
    assert deep["note"] == "not parsed (ValueError): file level only"
    assert deep["language"] == "kotlin" and "symbols" not in deep
    fine = extract_file(tmp_path, "Fine.kt", 1_000_000)
    assert [s["qualname"] for s in fine["symbols"]] == ["Track", "Track.crop"]
