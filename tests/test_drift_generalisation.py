"""Generic drift behaviours that carry over to unseen scenarios.

Each behaviour is derived from the constraint's own wording plus language-level cues, so
the scenario below (a lab-sample tracking tool) is deliberately unlike the bench's. Both
the default checker (lexical + MiniLM) and the lexical layer alone are exercised.
"""

from __future__ import annotations

import pytest

from charter.decisions.drift.checker import DriftChecker
from charter.decisions.models import parse_clarifications
from charter.embed.registry import get_embedder
from tests.decisions_support import choice_entry, clarification_entry

CLARIFICATIONS = [
    choice_entry(
        "LIMS_VENDOR",
        "Which LIMS stores the sample records?",
        {"labware": "LabWare LIMS", "starlims": "STARLIMS"},
        "labware",
    ),
    choice_entry(
        "STORAGE_LAYOUT",
        "How are freezers organised?",
        {"rack": "Rack storage", "drawer": "Drawer storage"},
        "rack",
    ),
    clarification_entry(
        "AUTO_LABELS",
        "Must tube labels be printed automatically when a sample is registered?",
        "yes_no",
        None,
        "yes",
    ),
    clarification_entry(
        "BENCH_SCANNING",
        "Must bench scanning keep working when the Wi-Fi drops in the cold room?",
        "yes_no",
        None,
        "yes",
    ),
    clarification_entry(
        "RESULT_SYNC",
        "How fresh must results be in the LIMS?",
        "free_text",
        None,
        "Every result reaches the LIMS within 30 seconds; no overnight file transfers.",
    ),
    clarification_entry(
        "TABLET_ENTRY",
        "Must technicians be able to register samples on a tablet or phone?",
        "yes_no",
        None,
        "yes",
    ),
    clarification_entry(
        "LABEL_CONTENT",
        "What must a tube label carry?",
        "free_text",
        None,
        "Every tube label shows the barcode and the collection date; technicians cannot "
        "edit the barcode.",
    ),
    choice_entry(
        "CLIENT",
        "Which client do technicians use?",
        {"browser": "Browser app", "native": "Native iOS/Android apps"},
        "browser",
    ),
    choice_entry(
        "NOTEBOOK",
        "Which electronic lab notebook holds the protocols?",
        {"benchling": "Benchling", "labfolder": "Labfolder Research Edition"},
        "benchling",
    ),
    clarification_entry(
        "ANIMAL_STUDIES",
        "Is tracking animal-study samples in scope for the first release?",
        "yes_no",
        None,
        "no",
        priority="should",
        reason="explicit_exclusion",
    ),
    clarification_entry(
        "SHIPPING",
        "Is courier shipping of samples between sites in scope?",
        "yes_no",
        None,
        "undecided",
        binding=False,
    ),
]


@pytest.fixture(scope="module", params=["semantic", "lexical"])
def checker(request: pytest.FixtureRequest) -> DriftChecker:
    embedder = get_embedder("minilm") if request.param == "semantic" else None
    decisions = parse_clarifications({"pgc_clarifications": CLARIFICATIONS}, "test")
    return DriftChecker(decisions, embedder=embedder)


def _found(checker: DriftChecker, text: str) -> set[tuple[str, str]]:
    result = checker.check(text)
    for f in result.findings:
        assert text[f.start : f.end] == f.evidence
    return {(f.rule, f.constraint_id) for f in result.findings}


FAILS = [
    # undecided phrasings
    (
        "The import screen is done. Which LIMS vendor we end up with is still being worked out, "
        "so the connector is a stub.",
        ("QA-PGC-003", "LIMS_VENDOR"),
    ),
    (
        "I've mocked the records layer: it's not settled yet which LIMS holds the samples.",
        ("QA-PGC-003", "LIMS_VENDOR"),
    ),
    (
        "The sample sync depends on whether we end up with LabWare or STARLIMS.",
        ("QA-PGC-003", "LIMS_VENDOR"),
    ),
    # a reported request does not hide the author's own suggestion after it
    (
        "A site lead asked whether we track samples by freezer; we could also move to "
        "STARLIMS for that.",
        ("QA-PGC-004", "LIMS_VENDOR"),
    ),
    # a reported question does not excuse what the text itself commits to
    (
        "A site lead asked whether we read STARLIMS exports; the import job now writes "
        "results straight into STARLIMS.",
        ("QA-PGC-001", "LIMS_VENDOR"),
    ),
    # the rejected option as the target of a migration
    ("We should migrate the remaining samples to STARLIMS.", ("QA-PGC-001", "LIMS_VENDOR")),
    # the one word that tells a rejected option from the chosen one, in a suggestion
    (
        "Freezer map works. For the new building we could also look at drawers instead.",
        ("QA-PGC-004", "STORAGE_LAYOUT"),
    ),
    # lost connectivity followed by a failure
    (
        "Cold room: if the scanner loses the network, bench scanning is blocked until the "
        "technician walks back to the lab.",
        ("QA-PGC-001", "BENCH_SCANNING"),
    ),
    # the opposite mode of a requirement
    (
        "After registration, a technician prints the tube labels by hand at the end of the run.",
        ("QA-PGC-001", "AUTO_LABELS"),
    ),
    (
        "Results are collected into a CSV at 01:30 and copied to the LIMS share.",
        ("QA-PGC-001", "RESULT_SYNC"),
    ),
    (
        "Registering samples is desktop-only for the first release.",
        ("QA-PGC-001", "TABLET_ENTRY"),
    ),
    # where a native client is distributed names its platform
    (
        "Technicians install the sample tracker from the App Store on their work devices.",
        ("QA-PGC-001", "CLIENT"),
    ),
    # an item a free-text answer covers without exception, weakened
    (
        "Tube labels for control samples are left out for now; they get a sticker.",
        ("QA-PGC-001", "LABEL_CONTENT"),
    ),
    # a later word of a product name counts when it is capitalised inside a sentence
    (
        "Protocols are now written in the Research Edition the partner lab uses.",
        ("QA-PGC-001", "NOTEBOOK"),
    ),
    # "until <someone> decides" leaves a settled question open
    (
        "The sample import is parked until the steering group decides which LIMS stores "
        "the records.",
        ("QA-PGC-003", "LIMS_VENDOR"),
    ),
    # "X cannot Y" in a free-text answer forbids "X can Y"
    (
        "Technicians can edit the barcode from the sample page when a tube is relabelled.",
        ("QA-PGC-001", "LABEL_CONTENT"),
    ),
]

PASSES = [
    # reported questions and returned hardware are not commitments
    "A site lead asked on the forum whether we could use STARLIMS like the other lab.",
    "Your question was whether STARLIMS could replace LabWare here. Short answer: no.",
    "A site lead wanted to know if we could use STARLIMS like the other lab.",
    "We piloted STARLIMS and drawer storage last year; the pilot kit went back to the vendor.",
    # the distinctive word outside a suggestion is not enough on its own
    "Each rack position has a drawer-style label holder.",
    # connectivity handled, not a failure
    "If the scanner loses the network, scans queue locally and dead spots don't stop work.",
    "When the scanner is offline, the upload button is disabled and scans are saved locally.",
    "Each result is sent in batches of ten within 30 seconds of sign-off.",
    # the requirement's mode stated, or its opposite negated
    "Tube labels print automatically on registration; nobody prints them by hand.",
    "If the label printer jams, the technician reprints the tube label by hand.",
    "Every result reaches LabWare within 30 seconds of sign-off.",
    "Every tube label carries the barcode and the date, and technicians cannot edit it.",
    "The tracker is a bookmark on the intranet; nothing is published to Google Play.",
    # a capital at the start of a sentence is orthography, not a product name
    "Research groups keep their protocols in one shared folder per study.",
    # what the reader is told to move off ("X must be changed to Y")
    "Sites still on STARLIMS have to be migrated to the new system by June.",
    "Protocols kept in Labfolder Research Edition should be migrated over to the shared notebook.",
    "Animal-study samples still in the tracker must be moved to the archive system before launch.",
    # an exclusion restated to confirm it
    "Animal-study samples stay out of the first release, as agreed.",
    # "could" inside a relative clause is not a suggestion
    "The audit flags any screen that could let technicians edit the barcode: there must be none.",
    # a condition whose consequence refuses it
    "If a technician asks to edit the barcode after printing, the sample page still refuses.",
    # an unresolved constraint really is open
    "Whether couriers ship samples between sites is still undecided.",
]


@pytest.mark.parametrize(("text", "expected"), FAILS)
def test_generic_violation_fires(checker: DriftChecker, text: str, expected: tuple) -> None:
    assert expected in _found(checker, text)


@pytest.mark.parametrize("text", PASSES)
def test_generic_pass_stays_quiet(checker: DriftChecker, text: str) -> None:
    assert _found(checker, text) == set()
