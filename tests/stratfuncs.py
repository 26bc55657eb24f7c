"""User strategies for the tests (loaded as ``stratfuncs:NAME``)."""


def lowest_as_list(view):
    """The lowest card, returned as one probability per card of view.hand."""
    return [1.0] + [0.0] * (len(view.hand) - 1)


def lead_when_ahead(view):
    """Uses the score: highest card when behind, lowest otherwise (diff-dependent)."""
    card = max(view.hand) if view.diff < 0 else min(view.hand)
    return {card: 1.0}


def not_a_distribution(view):
    return {view.hand[0]: 0.7}


def foreign_card(view):
    return {99: 1.0}


def broken(view):
    raise KeyError("boom")


def uniform_by_value(view):
    """uniform as a user function: evaluated on actual card values, never relabelled by rank."""
    return {c: 1 / len(view.hand) for c in view.hand}


def proportional_by_value(view):
    """proportional as a user function: the card of rank r, r = hidden prizes below the pot."""
    return {sorted(view.hand)[sum(1 for p in view.prizes if p < view.pot)]: 1.0}


def match_by_value(view):
    """match as a user function: the card(s) closest to the pot, ties split evenly."""
    best = min(abs(c - view.pot) for c in view.hand)
    near = [c for c in view.hand if abs(c - view.pot) == best]
    return {c: 1 / len(near) for c in near}


# misplays: each returns something that is no distribution over the hand (tests/test_hostile.py)

def huge_probability(view):
    return [10 ** 400] + [0] * (len(view.hand) - 1)


def huge_card(view):
    return {10 ** 70: 1.0}


def nan_probability(view):
    return {view.hand[0]: float("nan")}


def negative_probability(view):
    return {view.hand[0]: -1.0, view.hand[-1]: 2.0}


def a_string(view):
    return "all in"


def nothing(view):
    return None


class _Unreadable:
    def __iter__(self):
        raise RuntimeError("cannot be read")


def unreadable(view):
    return _Unreadable()
