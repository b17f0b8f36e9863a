"""Hypothesis strategies for cron expressions, with their translation to croniter.

A case is rendered twice from the same choices: as AWS text (names in random case, leading
zeros, wrapping ranges, every day rule) and, when it lies in the subset both engines
share, as croniter's 7-field ``minute hour dom month dow second year`` text.

A case is decoded from one drawn integer instead of many small draws: Hypothesis spends
most of its time per draw, and the differential test needs ten thousand cases.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from hypothesis import strategies as st

MONTH_NAMES = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
WEEKDAY_NAMES = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")

_SEED = st.integers(0, 2**256 - 1)


@dataclass(frozen=True)
class Case:
    aws: str
    croniter: str | None  # None: outside the subset croniter shares


@dataclass(frozen=True)
class _Spec:
    low: int
    high: int
    names: tuple[str, ...] = ()
    wraps: bool = True
    steps: bool = True
    # croniter numbers days of the week Sunday 0 ... Saturday 6, one less than AWS.
    shift: int = 0

    @property
    def span(self) -> int:
        return self.high - self.low + 1


class _Digits:
    """Successive mixed-radix digits of one drawn integer."""

    def __init__(self, seed: int) -> None:
        self._rest = seed

    def take(self, size: int) -> int:
        self._rest, digit = divmod(self._rest, size)
        return digit


def _spell(digits: _Digits, value: int, spec: _Spec) -> str:
    style = digits.take(10)
    if spec.names and style < 4:
        name = spec.names[value - spec.low]
        cases = digits.take(8)
        return "".join(
            letter.lower() if cases >> position & 1 else letter
            for position, letter in enumerate(name)
        )
    return f"0{value}" if style == 4 else str(value)


def _cron_range(first: int, last: int, step: int, spec: _Spec) -> str:
    """A non-wrapping range in croniter's spelling."""
    first, last = first + spec.shift, last + spec.shift
    if first == last:
        # croniter reads ``n-n`` as ``*``; AWS reads it as the single value n.
        return str(first)
    return f"{first}-{last}" if step == 1 else f"{first}-{last}/{step}"


def _item(digits: _Digits, spec: _Spec) -> tuple[str, str]:
    kinds = ("*", "n", "n-m", "*/s", "n/s", "n-m/s") if spec.steps else ("*", "n", "n-m")
    kind = kinds[digits.take(len(kinds))]
    step = 1 + digits.take(spec.span + 1)
    first = spec.low + digits.take(spec.span)
    last = spec.low + digits.take(spec.span)
    if kind == "*":
        return "*", "*"
    if kind == "*/s":
        return f"*/{step}", f"*/{step}"
    first_text = _spell(digits, first, spec)
    if kind == "n":
        return first_text, str(first + spec.shift)
    if kind == "n/s":
        return f"{first_text}/{step}", _cron_range(first, spec.high, step, spec)
    if last < first and not spec.wraps:
        first, last = last, first
        first_text = _spell(digits, first, spec)
    aws = f"{first_text}-{_spell(digits, last, spec)}"
    if kind == "n-m":
        step = 1
    else:
        aws += f"/{step}"
    if first <= last:
        return aws, _cron_range(first, last, step, spec)
    # croniter restarts a wrapping stepped range one value late (55-54/13 gives 55, 9, 22,
    # ... instead of 55, 8, 21, ...), so it gets the two halves as plain ranges.
    head_last = first + (spec.high - first) // step * step
    resume = head_last + step - spec.span
    parts = [_cron_range(first, head_last, step, spec)]
    if resume <= last:
        parts.append(_cron_range(resume, last - (last - resume) % step, step, spec))
    return aws, ",".join(parts)


def _field(seed: int, spec: _Spec, star_odds: int) -> tuple[str, str]:
    """A comma list of one to three items, or ``*`` with odds 1 in ``star_odds`` (0: never)."""
    digits = _Digits(seed)
    if star_odds and digits.take(star_odds) == 0:
        return "*", "*"
    items = [_item(digits, spec) for _ in range(1 + digits.take(3))]
    return ",".join(aws for aws, _ in items), ",".join(cron for _, cron in items)


_MINUTES = _Spec(0, 59)
_HOURS = _Spec(0, 23)
_DAYS_OF_MONTH = _Spec(1, 31, wraps=False)
_MONTHS = _Spec(1, 12, MONTH_NAMES)
_DAYS_OF_WEEK = _Spec(1, 7, WEEKDAY_NAMES, steps=False, shift=-1)


def _day_of_month(seed: int, shared: bool) -> tuple[str, str | None]:
    digits = _Digits(seed)
    # croniter has no LW.
    rule = digits.take(5 if shared else 6)
    if rule == 0:
        return "L", "L"
    if rule == 1:
        # croniter moves an ``nW`` past the month's end back to the last day; AWS matches
        # nothing that month.
        last = 28 if shared else 31
        # Half the time a day whose edge rules differ: the 1st, or one of the month ends.
        edges = (1, 28, 29, 30, 31)[: 2 if shared else 5]
        n = edges[digits.take(len(edges))] if digits.take(2) else 1 + digits.take(last)
        return f"{n}W", f"{n}W"
    if rule == 5:
        return "LW", None
    return _field(digits.take(2**200), _DAYS_OF_MONTH, star_odds=3)


def _day_of_week(seed: int) -> tuple[str, str]:
    digits = _Digits(seed)
    rule = digits.take(5)
    weekday = 1 + digits.take(7)
    spelled = _spell(digits, weekday, _DAYS_OF_WEEK)
    if rule == 0:
        return "L", "6"
    if rule == 1:
        return f"{spelled}L", f"L{weekday - 1}"
    if rule == 2:
        nth = 1 + digits.take(5)
        return f"{spelled}#{nth}", f"{weekday - 1}#{nth}"
    return _field(digits.take(2**200), _DAYS_OF_WEEK, star_odds=3)


def _years(seed: int, last: int) -> tuple[str, str]:
    digits = _Digits(seed)
    if digits.take(2) == 0:
        return "*", "*"
    return _field(digits.take(2**200), _Spec(2000, last, wraps=False), star_odds=0)


def _hashed(seed: int, part: int) -> int:
    # Hypothesis favours a few integers (0, 1, the maximum); hashing spreads every drawn
    # integer over all the digits, so distinct draws give distinct cases.
    data = seed.to_bytes(32, "big")
    digest = hashlib.blake2b(data, digest_size=32, salt=bytes([part])).digest()
    return int.from_bytes(digest, "big")


def _field_seeds(seed: int) -> list[int]:
    return [_hashed(seed, field) for field in range(6)]


def _case(seed: int, shared: bool, dense: bool = False) -> Case:
    seeds = _field_seeds(seed)
    minutes = _field(seeds[0], _MINUTES, star_odds=4)
    hours = _field(seeds[1], _HOURS, star_odds=2 if dense else 4)
    months = _field(seeds[2], _MONTHS, star_odds=1 if dense else 2)
    # croniter's years end at 2099; AWS's at 2199.
    years = ("*", "*") if dense else _years(seeds[3], 2099 if shared else 2199)
    day_digits = _Digits(seeds[4])
    dom: tuple[str, str | None]
    if day_digits.take(2):
        dom, dow = _day_of_month(seeds[5], shared), ("?", "*")
    else:
        dom, dow = ("?", "*"), _day_of_week(seeds[5])
    fields = [minutes, hours, dom, months, dow]
    aws = " ".join(field[0] for field in fields)
    if years[0] != "*" or day_digits.take(2):
        aws += " " + years[0]
    translated = [field[1] for field in fields]
    cron = None
    if all(part is not None for part in translated):
        cron = " ".join(str(part) for part in translated) + f" 0 {years[1]}"
    return Case(f"cron({aws})", cron)


def cron_cases(shared: bool = False, dense: bool = False) -> st.SearchStrategy[Case]:
    """Valid AWS cron expressions; with ``shared``, only ones croniter can also evaluate.

    ``dense`` ones fire every year and month, so that short intervals often hold some.
    """
    return _SEED.map(lambda seed: _case(seed, shared, dense))


# 2000-01-01T00:00:00Z and 2060-01-01T00:00:00Z.
_FIRST_BASE, _LAST_BASE = 946684800, 2840140800


def shared_cases_with_base() -> st.SearchStrategy[tuple[Case, int]]:
    """A shared-subset case and an epoch second to search from, both from one draw.

    One draw per example matters: Hypothesis varies the draws of an example separately,
    and would otherwise repeat an expression with another starting point.
    """
    return _SEED.map(
        lambda seed: (
            _case(seed, True),
            _FIRST_BASE + _hashed(seed, 6) % (_LAST_BASE - _FIRST_BASE),
        )
    )
