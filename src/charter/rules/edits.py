"""Files a rule forbids the agent to edit, read from the rule's own words.

"`dist/` is generated output. Do not edit `dist/` directly", "never edit
`db/schema.rb` by hand": hand-editing a generated or owned file is a mistake agents make
often, and the edit is lost or breaks the next build. The PreToolUse guardrails
(``[session.guardrails] rule_edits``) deny a file tool's write to such a path, citing
the rule; the build or generator that owns the file still writes it through the shell.

What counts as forbidden is read by :mod:`charter.rules.negation`, with the verbs of
editing as bridge words ("do not edit files under `X`", "never hand-edit `X`", "do not
patch a `*.lock` file directly", "`X` must not be modified"; before a colon, a few words
may name the kind of what the list after it holds: "never edit generated files:
`gen/**`, `*.pb.go`"), and a passive prohibition forbids its subject ("The `.godot/`
directory is generated and should not be edited manually"). A path is a code
span without spaces that names a folder (``dist/``), a file with an extension
(``db/schema.rb``, ``CHANGELOG.md``) or a glob
(``src/**``); it is read relative to the project root, to the rule file's folder, or to
the folder a path-scoped rule applies to (``applyTo: "packages/web/**"``, ``globs:
packages/web/src/**``: "never edit `src/i18n.json`" there is ``packages/web/src/i18n.json``),
and a file named without a folder (``queries.go``) is every file of that name (a
name that is all extension, ``.import``, every file of that kind).
Prepositions of place introduce the path here, so they set no condition; a purpose after
the path does ("never edit `src/` to make tests pass" forbids a reason, not the files),
as do when, unless, without and the like. A rule that also gives leave to edit some of
what it names ("… the `index.mdx` files are hand-authored and may be edited") forbids
none of it: the guardrail cannot tell which part the leave covers.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from charter.rules.consent import consent_heading, consent_shadow
from charter.rules.model import Rule
from charter.rules.negation import (
    _EXCEPTION,
    _NEGATED,
    SPAN,
    Prohibition,
    Reading,
    _open_clauses,
    _words,
    clause_start,
    clauses,
    collect,
    distributed,
    forbidden_spans,
    negated,
    words_of,
)

#: Words that may stand between a cue and the path it governs.
_EDIT_WORDS = frozenset(
    {
        "edit", "edits", "editing", "hand", "modify", "modifying", "change", "changing",
        "touch", "touching", "update", "updating", "alter", "altering", "overwrite",
        "overwriting", "rewrite", "rewriting", "write", "writing", "patch", "patching", "to",
        "files", "file",
        "anything", "any", "the", "a", "an", "in", "under", "inside", "within", "of",
        "contents", "content", "manually", "directly",
        # "do not make changes to `X`", "do not suggest or apply changes to `X`": the noun
        # says the edit, a light verb before it (and "or" between two) only carries it
        "changes", "modifications", "make", "making", "apply", "applying", "suggest",
        "propose", "or",
        # which files, by their name or kind: "never edit files matching `zz_generated.*`",
        # "do not hand-edit files named `generated.ts`", "do not edit generated files
        # under `internal/`"
        "matching", "named", "called", "generated",
    }
) | words_of("edit_verbs") | words_of("articles") | words_of("edit_objects")  # fmt: skip
#: Words that restrict the prohibition to a context the guardrail cannot see.
_CONDITIONS = frozenset(
    {
        "when", "whenever", "while", "if", "unless", "except", "during", "before", "after",
        "until", "without", "once", "yet", "against", "for", "on", "between",
        "unprompted", "unasked", "autonomously",
        # "do not write `np.random.seed` outside `common/seeding.py`", "never edit
        # `schema.graphql` outside of the codegen step": forbidden only elsewhere (and the
        # span is as often code written into files as a file)
        "outside",
    }
) | words_of("edit_conditions")  # fmt: skip
#: Of the bridge words, those that say "edit".
_EDIT_VERBS = _EDIT_WORDS - {
    "to", "files", "file", "anything", "any", "the", "a", "an", "in", "under", "inside",
    "within", "of", "contents", "content", "hand", "manually", "directly", "make",
    "making", "apply", "applying", "suggest", "propose", "or", "matching", "named",
    "called", "generated",
} - words_of("articles") - words_of("edit_objects") | words_of("edit_verbs")  # fmt: skip
EDIT_READING = Reading(
    bridge=_EDIT_WORDS,
    conditions=_CONDITIONS,
    purpose_is_condition=True,
    verbs=_EDIT_VERBS,
    acts=words_of("edit_verbs"),
)
_PATHLIKE = re.compile(r"^[\w.@*?\[\]{}/+-]+$")
#: Characters that make a path a glob.
GLOB = re.compile(r"[*?\[{]")
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,9}$")


@dataclass(frozen=True)
class ForbiddenEdit(Prohibition):
    """One path (file, folder or glob) a rule forbids editing, and the rule's folder."""

    path: str  # the span as the rule wrote it
    pattern: str  # normalised: no leading ./ or /; a folder ends with /
    base: str  # the rule file's folder, project-relative ("" at the root)
    #: the literal folders of the rule's path scopes (``packages/web`` of
    #: ``packages/web/**/*.ts``): its paths may be written relative to them
    scope_dirs: tuple[str, ...] = ()
    #: "user" when the rule allows the edit on the user's say-so ("without asking",
    #: :mod:`charter.rules.consent`): the guardrail asks instead of denying
    consent: str = ""
    #: "new" when what the rule forbids is a new file directly in the folder ("Do not
    #: create new files directly in `docs/` root; use subject folders"): an existing file
    #: is edited as ever, and a subfolder takes new ones
    created: str = ""
    #: for a new-file prohibition, the file names the rule allows in the folder all the
    #: same ("Only `main.dart` and `firebase_options.dart` are allowed there")
    allowed: tuple[str, ...] = ()

    def matches(self, rel: str, root: str | None = None) -> bool:
        """Whether writing the project-relative file ``rel`` edits what the rule forbids.
        With the project's ``root``: a path of folders the rule names from its own folder
        that is not there ("Do not modify `prisma/schema.prisma`" in the root's
        `CLAUDE.md`, the schema under `backend/`) is the path of that name deeper down,
        as the rule's author meant it."""
        rel = rel.strip("/")
        bases = dict.fromkeys(["", *(d + "/" for d in (self.base, *self.scope_dirs) if d)])
        if self.created:
            # a file that is not there yet, right in the folder (not in a subfolder)
            return (
                root is not None
                and posixpath.dirname(rel) in {(b + self.pattern).rstrip("/") for b in bases}
                and not os.path.lexists(os.path.join(root, rel))
                and posixpath.basename(rel) not in self.allowed
            )
        if any(_path_matches(rel, base + self.pattern) for base in bases):
            return True
        if root is None or "/" not in self.pattern.rstrip("/") or GLOB.search(self.pattern):
            return False
        if self.pattern.startswith("../"):
            return False
        base = self.base + "/" if self.base else ""
        if os.path.lexists(os.path.join(root, base + self.pattern.rstrip("/"))):
            return False
        if not rel.startswith(base):
            return False
        deeper = "/" + rel[len(base) :]
        if self.pattern.endswith("/"):
            return ("/" + self.pattern) in deeper + "/"
        return deeper.endswith("/" + self.pattern)


def scope_dirs(scopes: Iterable[str]) -> tuple[str, ...]:
    """The literal folder each path scope starts with (``packages/web`` of
    ``packages/web/**/*.spec.ts`` and of ``packages/web/**``); none for a scope that
    starts with a wildcard (``**/*.ts``)."""
    out: list[str] = []
    for scope in scopes:
        p = scope.strip().lstrip("./")
        wild = GLOB.search(p)
        folder = posixpath.dirname(p[: wild.start()]) if wild else p.rstrip("/")
        if folder and folder not in out:
            out.append(folder)
    return tuple(out)


def path_matches(rel: str, pattern: str) -> bool:
    """Whether the project-relative file ``rel`` is under the rule's path ``pattern``."""
    return _path_matches(rel.strip("/"), pattern)


def _path_matches(rel: str, pattern: str) -> bool:
    if pattern.endswith("/"):
        return rel.startswith(pattern)
    if GLOB.search(pattern):
        if pattern.endswith("/**"):
            return rel.startswith(pattern[:-2])
        glob_name = posixpath.basename(pattern)
        if glob_name.startswith("*.") and posixpath.basename(rel) == glob_name[1:]:
            # `*.sops.yaml` names files of that kind, not the dot file `.sops.yaml` (a
            # tool's config): as in the shell, the star does not stand for nothing there
            return False
        from charter.rules.scopes import zero_dir_variants

        if "/" not in pattern and fnmatch.fnmatchcase(posixpath.basename(rel), pattern):
            # a glob without a folder is every file of that name, as in a .gitignore:
            # `zz_generated.*` is the generated file beside each package
            return True
        return any(fnmatch.fnmatchcase(rel, v) for v in zero_dir_variants(pattern))
    if rel == pattern or rel.startswith(pattern + "/"):
        return True
    # a file named without a folder ("never edit `queries.go`", "`go.sum` must not be
    # edited") is every file of that name, as a .gitignore line without a slash is, and
    # as a glob without one (`*.pb.go`) already was: a generator's output sits beside
    # each package it serves, and read as the root's file alone the rule guarded nothing
    if "/" in pattern:
        return False
    name = posixpath.basename(rel)
    # a name that is all extension ("do not hand-edit `.import` files", "never edit
    # `.pb.go` files") is every file of that kind, as well as the dot file of that name
    return name == pattern or (pattern.startswith(".") and name.endswith(pattern))


def parse_path(span: str) -> str | None:
    """The span as a project path pattern, or None when it does not name a path."""
    span = span.strip()
    if not _PATHLIKE.match(span) or "://" in span or not re.search(r"[A-Za-z]", span):
        return None
    if not ("/" in span or GLOB.search(span) or _EXTENSION.search(span)):
        return None
    while span.startswith("./"):
        span = span[2:]
    span = span.lstrip("/")
    if not span or span in ("**", "*", "**/*") or span.startswith("../"):
        return None  # everything, or outside the project: not a file rule
    return span


#: A sentence that opens with the paths it is about, then says what they are: "`X` —
#: regenerate with `make mocks`, never edit manually", "`dist/`: build output, do not
#: edit", also after a few words of its own before the dash ("`CHANGELOG.md` at the root
#: is generated by `git-cliff` — never edit it manually").
_SUBJECT = re.compile(
    r"^\s*(?P<spans>`[^`\n]+`(?:\s*(?:,|/|or|and)\s*`[^`\n]+`)*)"
    r"(?:\s+(?P<said>[^—–:;\n]*?))?\s*(?:[—–:]|\s-\s)(?P<rest>.*)$",
    re.S,
)
#: A description of the subject that negates, points elsewhere ("overrides it") or says
#: more than a few words is no plain "X is Y": the "it" after the dash may not be the
#: subject.
_SAID_WORDS = 12
_NOT_PLAIN = re.compile(
    r"\b(?:not|never|no|don't|doesn't|isn't|aren't|nor|it|its|them|they|this|that)\b", re.I
)
#: ... and ends by forbidding an edit with no object of its own (the subject is it).
_OBJECTLESS = re.compile(
    r"(?:^|[,;]\s*|\s)(?:never|do not|don't|must not|should not)\s+"
    r"(?:(?:manually|directly)\s+)?(?:hand-?)?"
    r"(?:edit|modify|change|touch|alter|rewrite|overwrite|patch)"
    r"(?:\s+(?:it|them|this|these|the|files?|manually|by|hand|directly))*\s*[.!]?\s*$",
    re.I,
)


#: What may stand before the paths a sentence is about: a list number, emphasis, or the
#: things in them ("All code in `src/` is auto-generated", "Everything under `x/` …").
_SUBJECT_LEAD = re.compile(
    # a label of a few words first ("**Note**: `x/` is …", "Generated Code: All code in …")
    r"^(?:[^\w`]|\d)*(?:[A-Za-z][\w -]{0,30}[*_]*:(?:[^\w`])*)?"
    r"(?:(?:all|any)\s+(?:the\s+)?(?:code|files?|content|contents)\s+"
    r"(?:in|under|inside|of)\s+|everything\s+(?:in|under|inside)\s+|"
    r"(?:the\s+)?(?:files?|contents?)\s+(?:in|under|inside|of)\s+)?(?=`)",
    re.I,
)
#: A sentence that is only the prohibition of an edit, its object a pronoun or nothing.
_OBJECTLESS_SENTENCE = re.compile(
    r"^\W*(?:please\s+)?(?:never|do not|don't|must not|should not)\s+"
    r"(?:(?:manually|directly)\s+)?(?:hand-?)?"
    r"(?:edit|modify|change|touch|alter|rewrite|overwrite|patch)"
    r"(?:\s+(?:it|them|this|these|manually|by|hand|directly))*\s*[.!*_]*"
    # what to do instead may follow a dash: "… by hand — always regenerate it"
    r"(?:\s*(?:[—–]|\s-\s).*)?\s*$",
    re.I,
)


def _subject_spans(text: str) -> list[str]:
    """Paths a sentence is about when it forbids editing them without naming them again
    (see :data:`_SUBJECT`); a condition or an exception in it forbids nothing."""
    found: list[str] = []
    spans = clauses(text)
    for k, (start, end) in enumerate(spans):
        # what the paths are may be named first ("Everything under `api/` is
        # generated"), and a list number or emphasis may open the line
        sentence = _SUBJECT_LEAD.sub("", text[start:end], count=1)
        m = _SUBJECT.match(sentence)
        if not m and k + 1 < len(spans):
            # "`X` is generated; do not edit it manually": the prohibition is a sentence
            # of its own, nothing but the act, right after the one that says what X is
            after = text[spans[k + 1][0] : spans[k + 1][1]]
            if _OBJECTLESS_SENTENCE.match(after):
                act = re.split(r"\s*(?:[—–]|\s-\s)", after.strip(), maxsplit=1)[0]
                m = _SUBJECT.match(f"{sentence} — {act}")
        if not m:
            continue
        rest = m.group("rest")
        if not _OBJECTLESS.search(rest) or _EXCEPTION.search(rest):
            continue
        said = m.group("said") or ""
        if said and (
            len(said.split()) > _SAID_WORDS
            or _NOT_PLAIN.search(SPAN.sub(" ", said))
            or any(parse_path(s.group(1)) for s in SPAN.finditer(said))
        ):
            continue  # "`a.yml` is read first; `b.yml` overrides it": which one is "it"?
        if EDIT_READING.conditions & set(re.findall(r"[a-z']+", SPAN.sub(" ", rest).lower())):
            continue
        found.extend(s.group(1).strip() for s in SPAN.finditer(m.group("spans")))
    return found


#: A passive prohibition of editing ("should not be edited", "must never be modified by
#: hand", "is not to be changed"): what it forbids is its subject, said before it.
_PASSIVE_EDIT = re.compile(
    r"\b(?:must|should|shall|may|can|is|are)(?:\s+not|\s+never|n['’]t)\s+(?:ever\s+)?"
    r"(?:to\s+)?be\s+(?:hand-?|manually\s+|directly\s+)?"
    r"(?:edited|modified|changed|touched|altered|patched|rewritten|overwritten|updated)\b",
    re.I,
)
#: A subject with a relative clause or a negation of its own is no plain noun phrase:
#: "`a.yml` overrides `b.yml`, which must not be edited" forbids `b.yml` alone, and
#: "migrations in `db/` that ran must not be changed" only some of them.
_NOT_SUBJECT = re.compile(r"\b(?:which|that|who|whom|whose|where|not|never|no)\b", re.I)
#: Words a subject may open with, before its first path: articles, quantifiers and the
#: generic names of files ("Files in `gen/`", "All generated code under `api/`", "The
#: protobuf files in `proto/`"); a clause that opens with any other word may be an
#: imperative ("Update `x.graphql`, and the generated types must not be edited" forbids
#: the types, not `x.graphql`).
_SUBJECT_OPENING = frozenset(
    {
        "the", "a", "an", "all", "any", "every", "everything", "anything", "this", "these",
        "those", "our", "its", "files", "file", "code", "output", "contents", "content",
        "generated", "auto",
    }
)  # fmt: skip
#: More words than a noun phrase and its description hold ("`gen/` holds the generated
#: client and must not be edited by hand").
_SUBJECT_WORDS = 14


def _passive_spans(text: str) -> list[str]:
    """Paths a passive prohibition of editing is about: those of its subject ("The
    `.godot/` directory contains generated files and should not be edited manually",
    "Files in `gen/` are generated and must never be edited"). A condition, an exception
    or a purpose anywhere in the clause forbids nothing (as for the active readings)."""
    found: list[str] = []
    for clause, spans in _open_clauses(text, EDIT_READING):
        masked = SPAN.sub(lambda m: " " * len(m.group(0)), clause)
        cue = _PASSIVE_EDIT.search(masked)
        if cue is None:
            continue
        subject = [m for m in spans if m.end() <= cue.start()]
        if not subject:
            continue
        # the subject starts its own clause: "**Do not edit generated files**: The files
        # in `proto/` are generated and should not be edited" is about `proto/`
        start = clause_start(masked[: subject[0].start()])
        said = masked[start : cue.start()]
        if (
            len(_words(said)) > _SUBJECT_WORDS
            or _NOT_SUBJECT.search(said)
            or not set(_words(masked[start : subject[0].start()])[:1]) <= _SUBJECT_OPENING
        ):
            continue
        found.extend(m.group(1).strip() for m in subject)
    return found


#: A prohibition of an edit set in parentheses right after the paths it is about:
#: "`prototype/` (do not edit)", "`/themes/hugo-book` (git submodule, do not change)",
#: "`public/`, `resources/_gen/` (**do not edit**)". What comes first inside says what
#: the paths are; the prohibition is the aside's last part, with no object of its own.
_ASIDE = re.compile(
    r"(?P<spans>`[^`\n]+`(?:\s*(?:,|and|or|, and|, or)\s*`[^`\n]+`)*)?\s*"
    r"\((?P<inner>[^()\n]*)\)"
)
_ASIDE_ACT = re.compile(
    r"^(?:never|do not|don't|must not|should not)\s+(?:(?:manually|directly)\s+)?(?:hand-?)?"
    r"(?:edit|modify|change|touch|alter)"
    r"(?:\s+(?:it|them|this|these|manually|by\s+hand|directly))*"
    r"(?:\s+per\s+[\w\s-]+)?$",
    re.I,
)
#: Where a description inside the aside places the paths: "(vendored in `apps/frappe/`,
#: do not modify)".
_ASIDE_PLACE = re.compile(r"\b(?:in|under|at)\s+`([^`\n]+)`")


def _aside_parts(inner: str) -> list[str] | None:
    """The comma-separated parts of an aside (or a table cell) whose last part forbids an
    edit with no object of its own ("Auto-generated, do not edit"), else None; an
    exception or a condition in it forbids nothing."""
    inner = re.sub(r"[*_]", "", inner).strip().rstrip(".")
    parts = [p.strip() for p in inner.split(",")]
    if not parts or not _ASIDE_ACT.match(parts[-1]) or _EXCEPTION.search(inner):
        return None
    if EDIT_READING.conditions & set(re.findall(r"[a-z']+", SPAN.sub(" ", inner).lower())):
        return None
    return parts


def _aside_spans(text: str) -> list[str]:
    """Paths an aside after them forbids editing (see :data:`_ASIDE`)."""
    found: list[str] = []
    for m in _ASIDE.finditer(text):
        parts = _aside_parts(m.group("inner"))
        if parts is None:
            continue
        if m.group("spans"):
            found.extend(s.group(1).strip() for s in SPAN.finditer(m.group("spans")))
        for part in parts[:-1]:
            found.extend(p.group(1).strip() for p in _ASIDE_PLACE.finditer(part))
    return found


#: Code spans joined as a list ("`a/`, `b/` and `c/`").
_SPAN_LIST = r"`[^`\n]+`(?:\s*(?:,|and|or|, and|, or)\s*`[^`\n]+`)*"
#: A table cell (as a row is compiled: "Header: content") that holds nothing but paths.
_PATH_CELL = re.compile(rf"^(?:[^`|:]{{1,40}}:\s*)?(?P<spans>{_SPAN_LIST})$")
#: A cell's closing aside, or the cell's whole text after its header's label.
_CELL_ASIDE = re.compile(r"\((?P<inner>[^()\n]*)\)\s*\.?$")
_CELL_LABEL = re.compile(r"^[^`|:]{1,40}:\s*")


def _row_spans(rule: Rule) -> list[str]:
    """The paths of a table row whose other cell forbids editing them: "| `src/gen.h` |
    Auto-generated header (don't edit manually) |" or "| `dist/` | Build output | Do not
    edit |". The row's first cell of nothing but paths is what the row is about; a cell
    that forbids with paths of its own is read as any sentence is."""
    if rule.kind != "row":
        return []
    cells = [c.strip() for c in rule.text.split(" | ")]
    subject = next((m for c in cells if (m := _PATH_CELL.match(c))), None)
    if subject is None:
        return []
    for cell in cells:
        if SPAN.search(cell):
            continue
        aside = _CELL_ASIDE.search(cell)
        inner = aside.group("inner") if aside else _CELL_LABEL.sub("", cell)
        if _aside_parts(inner) is not None:
            return [s.group(1).strip() for s in SPAN.finditer(subject.group("spans"))]
    return []


#: What forbids an edit with no negation and no verb of editing: "leave `Cargo.toml`
#: alone", "leave the `migrations/` folder untouched", "hands off `src/gen/`", "treat
#: `vendor/` as read-only", "consider `third_party/` off-limits".
_LEFT_ALONE = re.compile(
    rf"\bleave\s+(?:(?:the|this|that|these|those|my|our)\s+)?(?P<a>{_SPAN_LIST})"
    r"(?:\s+(?:file|files|folder|folders|directory|directories|dir))?"
    r"\s+(?:alone|untouched|unchanged|as[- ]is|as\s+it\s+is|as\s+they\s+are)\b"
    rf"|\bhands\s+off(?:\s+of)?\s+(?:(?:the|my|our)\s+)?(?P<b>{_SPAN_LIST})"
    rf"|\b(?:treat|consider|regard|keep)\s+(?:(?:the|this|that|these|those|our)\s+)?"
    rf"(?P<c>{_SPAN_LIST})"
    r"(?:\s+(?:file|files|folder|folders|directory|directories|dir|tree))?"
    r"\s+(?:as\s+)?(?:read[- ]only|immutable|off[- ]limits|frozen)\b",
    re.I,
)


#: Folders declared read-only: "`third_party/` is read-only; wrap vendored code …",
#: "`CLASSIFIER/checkpoints/` is **legacy read-only**.", "Legacy / read-only: everything
#: inside `ABI/`, `DCI/`". The words end there (or at a dash): "read-only at runtime", "…
#: in `processElement`" say when or where, and a value ("`this.args`", a pool, a token) is
#: read-only as code, not as files, so only a path with a folder in it is taken.
_DECLARED_READ_ONLY = re.compile(
    rf"^\W*(?P<a>{_SPAN_LIST})\s+(?:is|are)\s+[*_]*(?:[\w-]+\s+){{0,2}}?read[- ]only[*_]*"
    r"\s*(?:$|[.;!]|\s[-—–]\s|[—–])"
    rf"|^\W*(?:[\w-]+\s*/\s*)?read[- ]only[*_]*\s*:[*_]*\s*"
    r"(?:(?:everything|anything|all(?:\s+files)?|the\s+files)\s+(?:in|inside|under|within)\s+)?"
    rf"(?P<b>{_SPAN_LIST})\s*[.;]?\s*$",
    re.I,
)


def left_alone_spans(text: str) -> list[str]:
    """The paths a clause tells the agent to leave alone (:data:`_LEFT_ALONE`), unless
    the clause is negated ("don't leave `x/` as is") or sets a condition ("leave `x/`
    alone until I have reviewed it", "treat `builtin/` as read-only unless the user
    asks": that one waits for the user's consent, :func:`edits_in`)."""

    found: list[str] = []
    for start, end in clauses(text):
        clause = text[start:end]
        for m in _LEFT_ALONE.finditer(clause):
            rest = SPAN.sub(" ", clause[: m.start()] + clause[m.end() :])
            if negated(clause) or EDIT_READING.conditions & set(
                re.findall(r"[a-z']+", rest.lower())
            ):
                continue
            spans = m.group("a") or m.group("b") or m.group("c")
            found.extend(s.group(1).strip() for s in SPAN.finditer(spans))
        declared = _DECLARED_READ_ONLY.search(clause)
        if declared is not None and not negated(clause):
            spans = declared.group("a") or declared.group("b")
            found.extend(
                s.group(1).strip()
                for s in SPAN.finditer(spans)
                if "/" in s.group(1).strip("/") or s.group(1).strip().endswith("/")
            )
    return found


#: Leave to edit ("… are hand-authored and may be edited"): said anywhere in a rule, it
#: excepts part of what the rule forbids, and the guardrail cannot tell which part.
_LEAVE = re.compile(
    r"\b(?:may|can|should|must)\s+(?:still\s+|also\s+|safely\s+)?be\s+(?:hand-?)?"
    r"(?:edited|modified|changed|updated)\b|\bsafe to (?:edit|modify|change)\b",
    re.I,
)


#: What a rule asks to edit, and only that: "you should only update `.js` files named
#: `.es6.js` and should never manually edit files named `.js`" (Drupal). A forbidden path
#: that covers it forbids part of what the rule asks for, and the guardrail cannot tell
#: which part (as with a leave to edit, :data:`_LEAVE`).
_ONLY_EDIT = re.compile(
    r"\bonly\s+(?:ever\s+)?(?:hand-?)?(?:edit|update|modify|change|touch)\b"
    r"(?P<what>[^,.;:!?—–]*)",
    re.I,
)


def _asked_to_edit(text: str) -> list[str]:
    """The paths ``text`` asks to edit alone ("only edit `X`"), up to a negation."""
    # read with each span's text hidden (its dots are no sentence's end), spans kept
    masked = SPAN.sub(lambda s: "`" + "x" * (len(s.group(0)) - 2) + "`", text)
    found: list[str] = []
    for m in _ONLY_EDIT.finditer(masked):
        stop = _NEGATED.search(masked, m.start("what"), m.end("what"))
        what = text[m.start("what") : stop.start() if stop else m.end("what")]
        found += [p for s in SPAN.finditer(what) if (p := parse_path(s.group(1)))]
    return found


def _bare_name_glob(pattern: str) -> bool:
    """A glob with no folder and no extension (`ai-*`, `zz_generated*`): as often the
    name of a cluster's apps, branches or resources as of files."""
    return bool(GLOB.search(pattern)) and "/" not in pattern and "." not in pattern


def _called_files(text: str, span: str) -> bool:
    """Whether the rule calls ``span`` files ("`zz_generated*` files", "files named
    `gen_*`"): a word "file" or "files" within a few words of it."""
    for m in re.finditer(re.escape(f"`{span}`"), text):
        near = text[max(0, m.start() - 40) : m.end() + 30]
        if re.search(r"\bfiles?\b", SPAN.sub(" ", near), re.I):
            return True
    return False


def edits_in(rule: Rule) -> list[ForbiddenEdit]:
    """The paths ``rule`` forbids editing (see the module docstring); none when the rule
    also gives leave to edit some of them. Then those it forbids until the user consents
    ("never edit `X` without asking"), marked ``consent="user"``; under a heading that
    puts its list to the user (:func:`consent_heading`), all of them."""
    if consent_heading(rule):
        return [replace(e, consent="user") for e in _edits_in(rule)]
    return _edits_in(rule)


def _edits_in(rule: Rule) -> list[ForbiddenEdit]:
    said = distributed(rule.text)
    if said != rule.text:
        # "Never: A; B; C": each act read as said alone, the rule cited as written
        return [replace(e, rule_text=rule.text) for e in _edits_in(replace(rule, text=said))]
    found = _read_edits(rule)
    shadow = consent_shadow(rule.text)
    if shadow is None:
        return found
    held = {e.pattern for e in found}
    for edit in _read_edits(replace(rule, text=shadow)):
        if edit.pattern not in held:
            held.add(edit.pattern)
            found.append(replace(edit, rule_text=rule.text, consent="user"))
    return found


#: "from X" right after the path a prohibition names: who writes it ("never write to
#: `app.duckdb` from Streamlit", "never modify `config.json` from `scripts/`"), the
#: project's code or a tool, not the agent's edit; the project itself ("from the repo")
#: is no such writer.
_WRITTEN_FROM = re.compile(
    r"[*_]*\s+from\s+(?!(?:the\s+|this\s+)?(?:repo|repository|project|codebase|git)\b)",
    re.IGNORECASE,
)


def _read_edits(rule: Rule) -> list[ForbiddenEdit]:
    """What :func:`edits_in` reads from ``rule.text`` as written."""
    base = posixpath.dirname(rule.source.path)
    dirs = scope_dirs(rule.scopes)
    found: list[ForbiddenEdit] = []
    if _LEAVE.search(SPAN.sub(" ", rule.text)):
        return found
    spans = forbidden_spans(rule.text, EDIT_READING) + _subject_spans(rule.text)
    spans += _aside_spans(rule.text) + _row_spans(rule)
    asked = _asked_to_edit(rule.text)
    for span in dict.fromkeys(spans + _passive_spans(rule.text) + left_alone_spans(rule.text)):
        at = rule.text.find(f"`{span}`")
        if at >= 0 and _WRITTEN_FROM.match(rule.text, at + len(span) + 2):
            continue
        pattern = parse_path(span)
        if pattern is None or (_bare_name_glob(pattern) and not _called_files(rule.text, span)):
            continue
        if any(_path_matches(path, pattern) for path in asked):
            continue
        found.append(
            ForbiddenEdit(rule.id, rule.source.cite(), rule.text, span, pattern, base, dirs)
        )
    for span in _direct_creations(rule.text):
        folder = span.strip().removeprefix("./").strip("/")
        if folder and not GLOB.search(folder) and ".." not in folder.split("/"):
            found.append(
                ForbiddenEdit(
                    rule.id, rule.source.cite(), rule.text, span, folder + "/", base, dirs,
                    created="new", allowed=_allowed_names(rule.text),
                )
            )  # fmt: skip
    return found


#: The files a rule names as the only ones a folder may hold ("Only `main.dart` and
#: `firebase_options.dart` are allowed there", "only `index.ts` may live in `src/`",
#: "only `app.dart` and `main.dart` belong at the root").
_ONLY_ALLOWED = re.compile(
    r"\bonly\s+(?P<names>`[^`\n]+`(?:\s*(?:,\s*(?:and\s+|or\s+)?|and\s+|or\s+)`[^`\n]+`)*)"
    r"\s+(?:are|is|may|can|should|belong|remain|stay|live|go)\b",
    re.IGNORECASE,
)


def _allowed_names(text: str) -> tuple[str, ...]:
    """The file names (no folder, no glob) ``text`` allows as the only ones of a folder
    (:data:`_ONLY_ALLOWED`)."""
    found: list[str] = []
    for m in _ONLY_ALLOWED.finditer(" ".join(text.split())):
        for name in re.findall(r"`([^`\n]+)`", m.group("names")):
            name = name.strip()
            if name and "/" not in name.rstrip("/") and not GLOB.search(name):
                found.append(name.rstrip("/"))
    return tuple(dict.fromkeys(found))


#: A sentence that forbids creating files right in a folder named in code: "Do not create
#: new files directly in `docs/` root; use subject folders", "❌ **Never** create new files
#: directly in `lib/` root.", "禁止在 `docs/` 根目录直接创建文件" ("directly" or the folder's
#: "root" says its subfolders are where files go). The object is files as such: "…
#: 直接创建业务模块文件" (business module files) names a kind the hook cannot tell, and a
#: condition or anything but a reason after the folder leaves it advice.
_DIRECT_CREATION = re.compile(
    r"(?:^|[.!?;:]\s+|\s)(?:never|do\s+not|don't|must\s+not|should\s+not|avoid)\s+"
    r"(?:create|creating|add|adding|put|putting|place|placing|save|saving)\s+"
    r"(?:any\s+)?(?:new\s+)?files?\s+(?P<directly>directly\s+)?(?:in|into|at|under)\s+"
    r"(?:the\s+)?`(?P<path>[^`\n]+)`(?P<root>\s+(?:root|top[- ]level)(?:\s+(?:folder|directory))?)?"
    r"\s*(?:$|[.;!(]|,\s+(?:use|put|place)\b|\s[-—–]\s|[—–])",
    re.IGNORECASE,
)
_DIRECT_CREATION_ZH = re.compile(
    r"(?:禁止|不要|不得|不能|请勿|請勿|严禁|嚴禁|切勿)\s*[:：]?\s*在\s*`(?P<path>[^`\n]+)`\s*"
    r"(?P<root>根目录|根目錄)?\s*(?:下|中|里|裡)?\s*(?P<directly>直接)\s*"
    r"(?:创建|新建|建立|添加|放置|創建)\s*(?:任何|新的?)?\s*文件\s*(?:$|[。；;，,.!！])"
)


def _direct_creations(text: str) -> list[str]:
    """The folders ``text`` forbids creating files directly in (:data:`_DIRECT_CREATION`)."""
    plain = re.sub(r"[*_~]+", "", " ".join(text.split()))
    found: list[str] = []
    for pattern in (_DIRECT_CREATION, _DIRECT_CREATION_ZH):
        for m in pattern.finditer(plain):
            if not (m.group("directly") or m.group("root")):
                continue  # "never add files in `src/`" says nothing of its subfolders
            before = plain[: m.start()]
            clause = re.split(r"[.;!?。；]\s*", before)[-1]
            if _CONDITION_BEFORE.search(clause):
                continue  # "When refactoring, do not create …": a moment the hook cannot see
            found.append(m.group("path"))
    return found


#: Words before a prohibition that set when it holds.
_CONDITION_BEFORE = re.compile(r"\b(?:when|if|unless|while|during|after|before)\b", re.I)


#: A clause that asks for an edit of a path: a verb of editing, a few words, the path
#: ("Add new strings to `Sources/App/Resources/en.lproj/Localizable.strings`", "update
#: `CHANGELOG.md` with each change").
_ASKS_EDIT = re.compile(
    r"\b(?:add|adding|edit|editing|update|updating|modify|modifying|append|appending|"
    r"insert|inserting)\b(?:\s+[\w'-]+){0,5}?\s+`(?P<span>[^`\n]+)`",
    re.IGNORECASE,
)


def asked_edits(rule: Rule) -> list[str]:
    """The project-relative paths ``rule`` asks the agent to edit, in a clause that
    negates nothing (read from the rule's folder)."""
    base = posixpath.dirname(rule.source.path)
    found: list[str] = []
    for start, end in clauses(rule.text):
        clause = rule.text[start:end]
        if negated(SPAN.sub(" ", clause)):
            continue
        for m in _ASKS_EDIT.finditer(clause):
            path = parse_path(m.group("span"))
            if path is not None and not GLOB.search(path):
                found.append(posixpath.normpath(posixpath.join(base, path)))
    return found


def forbidden_edits(rules: Iterable[Rule]) -> list[ForbiddenEdit]:
    """Every path the rules forbid editing, in rule order (one entry per rule and path);
    none that covers a file another rule asks the agent to edit ("Add new strings to
    `…/en.lproj/Localizable.strings`" beside "do not edit `.strings` files manually"):
    the rules contradict each other there, and the guardrail cannot tell which part the
    prohibition meant, as with a leave to edit said in the rule itself (:data:`_LEAVE`)."""
    rules = list(rules)
    asked = {path for rule in rules for path in asked_edits(rule)}
    found = collect(rules, edits_in, lambda e: e.pattern)
    return [e for e in found if not any(e.matches(path) for path in asked)]


def first_edit_violation(
    edits: Sequence[ForbiddenEdit], paths: Iterable[str], root: str | None = None
) -> tuple[ForbiddenEdit, str] | None:
    """The first (rule path, file) pair where writing a project-relative file edits what a
    rule forbids (``root``: the project's, see :meth:`ForbiddenEdit.matches`)."""
    for rel in paths:
        for edit in edits:
            if edit.matches(rel, root):
                return edit, rel
    return None
