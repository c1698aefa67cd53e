"""English stopwords, one list for every lexical index in Charter.

Search, the project graph and the drift checker all drop the same English function
words before matching, so a word is noise (or not) the same way everywhere. The list is
NLTK's English list, compacted, minus the negations ("no", "not", "nor") that change a
sentence's meaning: a capability that also wants those out adds them itself.
"""

from __future__ import annotations

__all__ = ["ENGLISH"]

_ENGLISH = """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself now of off on once only or other our
    ours ourselves out over own same she should so some such than that the their theirs
    them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours
    yourself yourselves
"""

#: English function words (generic language, not tuned on any data).
ENGLISH = frozenset(_ENGLISH.split())
