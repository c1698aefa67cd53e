"""One English stopword list: search, the graph and the drift checker drop the same
function words, and negations stay searchable."""

from __future__ import annotations

from charter.decisions.drift import lexicon
from charter.search.text import STOPWORDS as SEARCH_STOPWORDS
from charter.search.text import terms
from charter.stopwords import ENGLISH


def test_search_and_drift_share_the_english_list() -> None:
    assert SEARCH_STOPWORDS == ENGLISH
    assert ENGLISH <= lexicon.STOPWORDS


def test_negations_are_not_search_stopwords() -> None:
    # "not" changes what a sentence says: a search for it must still reach the index
    assert {"no", "not", "nor"}.isdisjoint(ENGLISH)
    assert "not" in terms("this is not cached")


def test_drift_never_treats_negations_or_generic_product_words_as_options() -> None:
    for word in ("not", "no", "users", "feature", "app", "required"):
        assert word in lexicon.STOPWORDS
    assert lexicon.content_stems("the app must not use the users feature") == []
