"""A bounded cache of a fit's answers, by the content of its inputs: the
memory pipeline fits the same curves more than once (the plan's first looks
and the final fit), and its models ask for the same arrays again and again.
One kind of cache for all of them (the ring's fit, the walk's fit, the LRU
set model): the last ``kept`` answers, least recently used dropped first."""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Hashable


class Kept:
    """``answer(key, compute)``: the answer kept under ``key``, or
    ``compute()``'s, kept.  The caller copies what it hands out if the
    answer is mutable."""

    def __init__(self, kept: int):
        self.kept = kept
        self._answers: OrderedDict = OrderedDict()

    def answer(self, key: Hashable, compute: Callable[[], object]):
        if key in self._answers:
            self._answers.move_to_end(key)
            return self._answers[key]
        answer = self._answers[key] = compute()
        while len(self._answers) > self.kept:
            self._answers.popitem(last=False)
        return answer
