"""Agents for the arena tests (loaded as ``arena_agents:NAME``): well-behaved ones that play known
strategies, one that reads the history, and every kind of misbehaviour."""

import math
import time

import numpy as np


class UniformAct:
    """uniform through act(): one probability per action."""

    def act(self, observation, action_mask):
        return action_mask / action_mask.sum()


class LowestAct:
    """lowest through act(): an action index."""

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


class Grudge:
    """Reads the history: bids its highest card in the round after it lost one, else its lowest."""

    def reset(self):
        self.last = None

    def act(self, observation, action_mask):
        lost = self.last is not None and observation["scores"][1] > self.last[1]
        self.last = tuple(observation["scores"])
        legal = np.flatnonzero(action_mask)
        return int(legal[-1] if lost else legal[0])


def highest_reply(prompt):
    """A scripted text agent: names the highest card of the hand in a sentence."""
    hand = prompt.split("Your hand: ")[1].split("\n")[0].split(", ")
    return f"I will bid {hand[-1]}, my highest card."


def raises(view):
    raise RuntimeError("my bug")


def hangs(view):
    while True:
        time.sleep(0.01)


def illegal(view):
    return {99: 1.0}


def half(view):
    return {view.hand[0]: 0.5}


def nan(view):
    return {c: math.nan for c in view.hand}


def rambles(prompt):
    return "Let me think about the pot and the hidden prizes first."


class Spins:
    """Hangs in act() with a busy loop (no sleep to interrupt)."""

    def act(self, observation, action_mask):
        while True:
            pass


class OffMask:
    """Chooses an action the mask forbids once its first card is spent."""

    def act(self, observation, action_mask):
        return 0


NOT_AN_AGENT = 42
