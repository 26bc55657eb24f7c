"""User strategies for the model tests (loaded as ``path/to/modelfuncs.py:NAME``)."""


def second_lowest(view):
    """The second-lowest card in hand (the lowest when one is left): no built-in strategy plays it."""
    hand = sorted(view.hand)
    return {hand[1] if len(hand) > 1 else hand[0]: 1.0}
