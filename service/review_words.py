"""A review in words, in the reader's language (issue 23): each person's accuracy and named
mistakes, with the expert's answer instead. The chart (render/review.py) shows the same
chances."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import i18n
from engine import CardSet, cards_for

from .lines import Line
from .lines import parse as fill
from .notation import action_words
from .review_looks import DECIDED_FACTOR, RECHECK_FACTOR, SETTLE_FACTOR
from .review_record import NAMED, Review, SeatReview


def pct(p: float) -> str:
    return f"{round(100 * p)}%"


def points_word(cost: float) -> str:
    return f"{100 * cost:.0f}"


def said(lang: str, key: str, **params: Any) -> Line:
    """A catalogue entry as a marked line (filled after it is split: a name stays a name)."""
    return fill(i18n.template(lang, key), **params)


def seat_lines(review: SeatReview, name: str, cards: CardSet, lang: str) -> list[Line]:
    """One person's review in words: accuracy, then the costliest decisions (their answers
    marked, as each interface shows an answer)."""
    followed = [fill(i18n.plural_template(lang, "review.hinted", review.hinted),
                     n=review.hinted)] if review.hinted else []
    if not review.points:  # e.g. a resignation before the first real choice
        return [said(lang, "review.seat_none", name=name), *followed]
    lines = [fill(i18n.plural_template(lang, "review.seat", len(review.points)), name=name,
                  accuracy=f"{review.accuracy:.0f}", n=len(review.points)), *followed]
    worst = review.mistakes()
    if not worst:
        lines.append(said(lang, "review.no_mistakes", points=f"{100 * NAMED:g}"))
    for k, p in enumerate(worst, 1):
        # round 0 is the setup's placement (R5), before the first round
        key = "review.mistake" if p.round > 0 else "review.mistake_setup"
        lines.append(said(lang, key, k=k, round=p.round, name=name,
                          kind=i18n.t(lang, f"decision.{p.kind}"),
                          played=action_words(p.played, cards, lang),
                          best=action_words(p.best, cards, lang),
                          before=pct(p.p), after=pct(p.p_best),
                          # the difference of the two figures shown (7 % and 34 %: 27), not
                          # the rounded difference (26: the new-player audit's sum that failed)
                          cost=f"{round(100 * p.p_best) - round(100 * p.p):.0f}"))
    return lines


def charted(review: Review) -> list[SeatReview]:
    """The seats the chart draws: those with a decision judged (an empty panel says nothing
    the words do not)."""
    return [s for s in review.seats if s.points]


def review_lines(review: Review, names: Sequence[str], setup: Mapping[str, Any], lang: str
                 ) -> list[Line]:
    """The whole review in words (the chart shows the same chances); the answers name the
    cards of the game's own set (its `setup`), in the reader's language."""
    cards = cards_for(setup)
    out = [said(lang, "review.title", game=review.game)]
    for s in review.seats:
        name = names[s.seat] if s.seat < len(names) else "?"
        out += seat_lines(s, name, cards, lang)
    # the second and third looks and a rollout that ends the game each multiply the samples
    out.append(said(lang, "review.footer", samples=review.samples,
                    most=review.samples * RECHECK_FACTOR * SETTLE_FACTOR * DECIDED_FACTOR))
    return out
