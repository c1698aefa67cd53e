"""The user's instructions kept across compaction: their own words, not pasted output."""

from __future__ import annotations

from charter.session.instructions import human_lines, standing
from charter.tokens import count_many


def test_lines_a_process_tags_are_output_not_the_users_words() -> None:
    prompt = "\n".join(
        [
            "the server still fails on start, keep the retry logic in the manager",
            "(APIServer pid=4242) INFO 11-02 10:40:35 [setup.py:287] loading weights",
            '(APIServer pid=4242)   File "/srv/app/engine.py", line 198, in start',
            "(APIServer pid=4242) If this is a private repository, make sure to pass a",
            "token having permission to this repository before you retry the download",
            "(APIServer pid=4242) OSError: the model is not a valid identifier",
            "User is already logged in. see what the client says: (APIServer pid=4242) raise",
            "and never print the whole traceback in the client, one line is enough",
        ]
    )
    kept = human_lines(prompt)
    assert kept == [
        "the server still fails on start, keep the retry logic in the manager",
        "User is already logged in. see what the client says",
        "and never print the whole traceback in the client, one line is enough",
    ]


def test_a_tag_the_user_writes_twice_is_still_theirs() -> None:
    prompt = "(backend) use the queue for exports\n(frontend) show a spinner while it runs"
    assert human_lines(prompt) == [
        "(backend) use the queue for exports",
        "(frontend) show a spinner while it runs",
    ]


def test_words_typed_between_pasted_log_output_on_one_line_are_kept() -> None:
    line = (
        'INFO:     10.0.0.7:18553 - "POST /v1/chat HTTP/1.1" 503 Service Unavailable and the '
        "client shows nothing, all errors must be printed in the server terminal and the "
        "client only gets a short message (delta 15), reused 0"
    )
    kept = human_lines(line)
    assert len(kept) == 1
    assert "all errors must be printed in the server terminal" in kept[0]
    assert "POST /v1/chat" not in kept[0]


def test_pasted_output_no_longer_crowds_out_older_instructions() -> None:
    log = "\n".join(
        f"(worker pid=7) ERROR 10:00:{i:02d} [pool.py:{i}] retry {i} failed, make sure "
        "the connection string is right and every replica answers"
        for i in range(40)
    )
    said = [
        ("Use Pydantic for every API response and never swallow errors silently", "prompt", "1"),
        ("still broken, look: " + log, "prompt", "2"),
    ]
    kept = standing(said, 400, 60, count_many)
    text = " ".join(i.text for i in kept)
    assert "never swallow errors silently" in text
    assert "replica" not in text


def test_conversational_replies_are_no_standing_instructions() -> None:
    """ "continue", "yes" and "ok, go ahead" nudge the agent in the moment (the prompt hook
    adds no rules for them); after a compaction they were given back as instructions
    "still in force", a line each, beside the user's real ones."""
    said = [
        ("Make Region a typed gcp.Region, never a string", "prompt", "1"),
        ("continue", "prompt", "2"),
        ("Yes.", "prompt", "3"),
        ("ok, go ahead", "prompt", "4"),
        ("continue with the failing test", "prompt", "5"),
    ]
    kept = [i.text for i in standing(said, 400, 200, count_many)]
    assert kept == ["continue with the failing test", said[0][0]]


def test_a_url_or_path_in_a_sentence_keeps_the_sentence() -> None:
    url = "https://deploy.example.com/teams/acme-projects/billing-dashboard/deployments"
    path = "/home/dev/work/acme/custom_addons/recruitment_portal_enhanced"
    assert human_lines(f"just making sure you are deploying to {url}") == [
        f"just making sure you are deploying to {url}"
    ]
    assert human_lines(f"in {path}, add a login for candidates") == [
        f"in {path}, add a login for candidates"
    ]


def test_lines_of_paths_or_blobs_are_output() -> None:
    trace = (
        "Failed to load model /srv/app/venv/lib/python3.12/site-packages/anyio/to_thread.py "
        "/srv/app/venv/lib/python3.12/site-packages/starlette/concurrency.py"
    )
    blob = "aGVsbG8gd29ybGQgdGhpcyBpcyBhIHZlcnkgbG9uZyBiYXNlNjQgYmxvYiB0aGF0IGdvZXMgb24= and"
    assert human_lines(trace) == []
    assert human_lines(blob) == []
    # a path quoted inside a log line is not the user's words either
    assert human_lines("INFO:     Will watch for changes in: ['/srv/app/projects/acme/api']") == []


def test_pasted_markup_is_cut_out_and_the_words_around_it_stay() -> None:
    line = (
        'the list view is still wrong, maybe replace the whole view <list string="Deals">'
        ' <header> <button name="3" type="action"/> </header> <!-- a -> b -->'
        ' <field name="name"/> </list> or tell me why it does not apply'
    )
    kept = human_lines(line)
    assert kept == [
        "the list view is still wrong, maybe replace the whole view … or tell me why it "
        "does not apply"
    ]
    # one tag the user quotes is part of what they ask for
    assert human_lines('try setting it directly like <field name="name" width="500px"/>') == [
        'try setting it directly like <field name="name" width="500px"/>'
    ]


def test_a_pasted_log_in_a_fence_is_left_out_whole_and_marked() -> None:
    """A pipeline's error pasted in a fence between the user's sentences: one of its lines
    ("Process `PHENOTYPE` terminated with an error exit status (1)") reads as prose and was
    restored as the user's instruction, glued to the lead-in ("Here's the log Process …
    Make …"). A fenced block whose lines mostly read as log or trace output is output
    whole, and where output was left out the user's sentences are joined with " … "; a
    fenced spec the user pasted is still theirs."""
    prompt = (
        "The phenotype step crashes on samples without a CD45 channel. Here's the log:\n"
        "```\nERROR ~ Error executing process > 'MAIN:PHENOTYPE (sample_03)'\n\n"
        "Caused by:\n  Process `PHENOTYPE` terminated with an error exit status (1)\n\n"
        "Command error:\n  Traceback (most recent call last):\n"
        '    File "/opt/bin/phenotype.py", line 212, in <module>\n      main()\n'
        "  KeyError: 'CD45'\n```\n"
        "Make bin/phenotype.py skip missing markers and log a warning. "
        "Do not change nextflow_schema.json, the parameter form reads it."
    )
    assert human_lines(prompt) == [
        "The phenotype step crashes on samples without a CD45 channel. Here's the log",
        "Make bin/phenotype.py skip missing markers and log a warning. "
        "Do not change nextflow_schema.json, the parameter form reads it.",
    ]
    for short in (80, 4000):  # split into sentences, or one unit
        (kept,) = standing([(prompt, "prompt", "t")], short, 400, count_many)
        assert "terminated" not in kept.text
        assert "Here's the log … Make bin/phenotype.py" in kept.text, kept.text

    spec = (
        "Implement this:\n```\nThe export button downloads a CSV of the visible rows.\n"
        "It must keep the column order the user chose.\n```\nthanks"
    )
    (kept,) = standing([(spec, "prompt", "t")], 4000, 400, count_many)
    assert kept.text == (
        "Implement this The export button downloads a CSV of the visible rows. "
        "It must keep the column order the user chose. thanks"
    )


def test_globs_and_code_spans_keep_their_stars_and_bars() -> None:
    # stars and bars were blanked as emphasis and table layout wherever they stood:
    # "data/*.rda" came back as "data/ .rda", the user's words not restored exactly
    assert human_lines("And never edit data/*.rda by hand, regenerate them.") == [
        "And never edit data/*.rda by hand, regenerate them."
    ]
    assert human_lines("don't touch src/**/*.ts or *.lock files") == [
        "don't touch src/**/*.ts or *.lock files"
    ]
    assert human_lines('search with `grep -E "a|b"` first') == ['search with `grep -E "a|b"` first']
    # emphasis and table bars are still layout
    assert human_lines("**Never** use npm, *always* pnpm | the **.env** file") == [
        "Never use npm, always pnpm the .env file"
    ]
