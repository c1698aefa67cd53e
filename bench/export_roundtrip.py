"""Round trip of ``charter export`` on real rule files: compile, export, compile the export.

    .venv/bin/python bench/export_roundtrip.py --data /tmp/h32 --data /work/shared/bench/rules
    .venv/bin/python bench/export_roundtrip.py --data DIR --cli     # through the CLI (slower)

Each benchmark folder holds one rule file and its ``source.json`` (``path``: where the
file lives in its project). The file is put at that path in a temp git repository, which
is compiled; then for each export format the compiled rules are exported into a fresh
repository (twice, to check the export is byte-identical), that repository is compiled,
and the two rule sets are compared:

- ``missing``: a rule (normalised text) the export's compile does not give back;
- ``extra``: a rule the export's compile gives that the original did not have;
- ``changed``: same rule, other id or risk;
- ``scope``: same rule, other scopes (the paths it applies to);
- ``const``: same rule, other constitution membership;
- ``cite``: a rule whose exported line does not cite its original ``path:Lstart-Lend``;
- ``nondet``: two exports of the same rules differ (by hash of the tree);
- ``machine``: an exported file names the temp directory, or an absolute path its
  source file does not (rules may quote paths: ``tee /tmp/out.log``).

``--show N`` prints up to N examples of each problem. Exit status 1 when any is found.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TOML = "[hooks]\nwarm_worker = false\n"
KINDS = ("missing", "extra", "changed", "scope", "const", "cite", "nondet", "machine")
_WS = re.compile(r"\s+")
_CITE = re.compile(r"<!--\s*(\S+:L\d+-L\d+)\s*-->\s*$")
#: An absolute path a file should not hold: a temp dir, a home, a checkout.
_ABSOLUTE = re.compile(r"(?<![\w.])(/tmp/|/home/|/Users/|/root/|/work/|/private/var/|[A-Z]:\\)")

_PATH = re.compile(r"[^\s`\"'<>()\[\]]+")


def _token(line: str, start: int) -> str:
    match = _PATH.match(line, start)
    return match.group(0) if match else ""


def norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


@dataclass
class Result:
    name: str
    fmt: str
    before: int = 0
    after: int = 0
    files: int = 0
    problems: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, detail: str) -> None:
        self.problems.setdefault(kind, []).append(detail)


def _git_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "charter.toml").write_text(TOML, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def _tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class Runner:
    """Compile and export in process (one embedder for all) or through the CLI."""

    def __init__(self, cli: bool) -> None:
        self.cli = cli
        self.charter = str(Path(sys.executable).with_name("charter"))
        self.embedder: Any = None

    def compile(self, repo: Path) -> list[dict[str, Any]]:
        if self.cli:
            proc = subprocess.run(
                [self.charter, "compile", "--json"], cwd=repo, capture_output=True, text=True
            )
            if proc.returncode != 0:
                raise RuntimeError(f"compile in {repo}: {proc.stderr.strip()}")
            data = json.loads((repo / ".charter" / "rules.json").read_text(encoding="utf-8"))
            return list(data["rules"])
        from charter.config import Project
        from charter.embed.registry import rules_embedder_for
        from charter.rules.compiler import compile_rules

        project = Project.load(repo)
        if self.embedder is None:
            self.embedder = rules_embedder_for(project.settings)
        compiled = compile_rules(project, embedder=self.embedder)
        return [r.to_state() for r in compiled.rules]

    def export(self, repo: Path, fmt: str, out: Path) -> list[str]:
        if self.cli:
            proc = subprocess.run(
                [self.charter, "export", fmt, "--out", str(out), "--json"],
                cwd=repo,
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                raise RuntimeError(f"export {fmt} in {repo}: {proc.stderr.strip()}")
            return list(json.loads(proc.stdout)["files"])
        from charter.config import Project
        from charter.rules.compiler import load_or_compile
        from charter.rules.export import export_rules, write_export

        project = Project.load(repo)
        files = export_rules(load_or_compile(project).rules, fmt)
        write_export(files, out, fmt, lock=project.state_dir / "locks" / "export")
        return [f.path for f in files]


def _signature(rule: dict[str, Any]) -> tuple[str, str]:
    return (rule["id"], rule["risk"])


def compare(
    name: str,
    fmt: str,
    before: list[dict[str, Any]],
    after: list[dict[str, Any]],
    out: Path,
    listed: list[str],
) -> Result:
    res = Result(name, fmt, len(before), len(after), len(listed))
    # pair rules by text and id first, so a text stated twice pairs with its own copy
    pairs: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    unpaired = list(after)
    by_key = {(norm(r["text"]), r["id"]): r for r in after}
    rest = []
    for old in before:
        new = by_key.pop((norm(old["text"]), old["id"]), None)
        if new is None:
            rest.append(old)
        else:
            pairs.append((old, new))
            unpaired.remove(new)
    for old in rest:
        text = norm(old["text"])
        match = next((r for r in unpaired if norm(r["text"]) == text), None)
        if match is not None:
            unpaired.remove(match)
        pairs.append((old, match))
    for old, new in pairs:
        cite = _cite(old)
        text = norm(old["text"])
        if new is None:
            res.add("missing", f"{cite} {text[:90]!r}")
            continue
        if _signature(old) != _signature(new):
            res.add("changed", f"{cite} {_signature(old)} -> {_signature(new)}")
        if sorted(old["scopes"]) != sorted(new["scopes"]):
            res.add("scope", f"{cite} {old['scopes']} -> {new['scopes']} {text[:60]!r}")
        if old["constitution"] != new["constitution"]:
            res.add("const", f"{cite} {old['constitution']} -> {new['constitution']}")
        got = _exported_cite(out, new)
        if got != cite:
            res.add("cite", f"{cite} exported as {got} ({new['source']['path']})")
    for new in unpaired:
        res.add("extra", f"{_cite(new)} {norm(new['text'])[:90]!r}")
    return res


def _cite(rule: dict[str, Any]) -> str:
    src = rule["source"]
    return f"{src['path']}:L{src['line_start']}-L{src['line_end']}"


def _exported_cite(out: Path, rule: dict[str, Any]) -> str | None:
    """The citation on the exported line a recompiled rule came from."""
    src = rule["source"]
    lines = (out / src["path"]).read_text(encoding="utf-8").split("\n")
    for line in lines[src["line_start"] - 1 : src["line_end"]]:
        match = _CITE.search(line)
        if match:
            return match.group(1)
    return None


def machine_paths(out: Path, tmp: Path, source: str) -> list[str]:
    """Lines of the export naming the temp dir, or an absolute path the source does not."""
    found = []
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        if ".charter" in path.relative_to(out).parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.split("\n"), 1):
            quoted = all(_token(line, m.start()) in source for m in _ABSOLUTE.finditer(line))
            if str(tmp) in line or not quoted:
                found.append(f"{path.relative_to(out)}:{number}: {line.strip()[:100]}")
    return found


def folders(datas: list[Path]) -> list[tuple[str, Path, str]]:
    """(name, rule file, path in its project) for each folder with a source.json."""
    out = []
    for data in datas:
        for source in sorted(data.glob("*/source.json")):
            meta = json.loads(source.read_text(encoding="utf-8"))
            file = data / meta["saved_as"]
            if file.is_file():
                out.append((source.parent.name, file, meta["path"]))
            else:
                print(f"skipped {source.parent}: {meta['saved_as']} missing", file=sys.stderr)
    return out


def run_one(
    runner: Runner, name: str, file: Path, rel: str, formats: list[str], tmp: Path
) -> list[Result]:
    base = tmp / name
    origin = _git_repo(base / "origin")
    target = origin / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(file.read_bytes())
    before = runner.compile(origin)
    results = []
    for fmt in formats:
        out = base / f"export-{fmt}"
        listed = runner.export(origin, fmt, out)
        again = base / f"again-{fmt}"
        runner.export(origin, fmt, again)
        nondet = _tree_hash(out) != _tree_hash(again)
        machine = machine_paths(out, tmp, file.read_text(encoding="utf-8", errors="replace"))
        _git_repo(out)
        after = runner.compile(out)
        res = compare(name, fmt, before, after, out, listed)
        if nondet:
            res.add("nondet", "two exports differ")
        for item in machine:
            res.add("machine", item)
        results.append(res)
    return results


def main(argv: list[str] | None = None) -> int:
    from charter.rules.export import FORMATS

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, action="append", required=True)
    parser.add_argument("--format", action="append", choices=FORMATS)
    parser.add_argument("--only", action="append", help="only these folders (repeatable)")
    parser.add_argument("--cli", action="store_true", help="run the charter CLI per step")
    parser.add_argument("--show", type=int, default=0, help="examples of each problem")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    formats = args.format or list(FORMATS)
    runner = Runner(args.cli)
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="charter-rt-") as tmpdir:
        tmp = Path(tmpdir)
        for name, file, rel in folders(args.data):
            if args.only and name not in args.only:
                continue
            results += run_one(runner, name, file, rel, formats, tmp)
    if args.json:
        json.dump(
            [
                {
                    "file": r.name,
                    "format": r.fmt,
                    "before": r.before,
                    "after": r.after,
                    "files": r.files,
                    **{k: r.problems.get(k, []) for k in KINDS},
                }
                for r in results
            ],
            sys.stdout,
            indent=1,
        )
        print()
    else:
        head = f"{'file':24} {'format':13} {'before':>6} {'after':>6} " + " ".join(
            f"{k:>7}" for k in KINDS
        )
        print(head)
        for r in results:
            counts = " ".join(f"{len(r.problems.get(k, [])):>7}" for k in KINDS)
            print(f"{r.name:24} {r.fmt:13} {r.before:>6} {r.after:>6} {counts}")
            for kind in KINDS:
                for item in r.problems.get(kind, [])[: args.show]:
                    print(f"    {kind}: {item}")
        print()
        print("per format: files, rules, files without a problem; " + ", ".join(KINDS))
        for fmt in formats:
            rows = [r for r in results if r.fmt == fmt]
            totals: Counter[str] = Counter()
            for r in rows:
                for kind in KINDS:
                    totals[kind] += len(r.problems.get(kind, []))
            clean = sum(1 for r in rows if not r.problems)
            rules = sum(r.before for r in rows)
            counts = ", ".join(f"{k} {totals[k]}" for k in KINDS)
            print(f"  {fmt:13} {len(rows)} files, {rules} rules, {clean} clean; {counts}")
    return 1 if any(r.problems for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
