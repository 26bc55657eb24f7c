"""Open a solved store (or file) and query a few telling positions: README figures.

Usage: python benchmarks/store_queries.py PATH

Prints one JSON line per position (value, A's three likeliest bids, query
time) after one line with the load time. The positions are defined from n,
so the same script serves every deck size:

- ``opening``: the first round with the top prize revealed;
- ``top-for-bottom``: A took the top prize with its top card against B's
  lowest card (A leads by n, but every card of A's is one below B's);
- ``top-for-second``: A took the top prize with its top card against B's
  second-highest card;
- ``endgame``: three cards left, A two points behind.
"""
import json
import sys
import time


def positions(n: int, tie: str) -> list:
    low = list(range(1, n))
    return [
        ("opening", list(range(1, n + 1)), list(range(1, n + 1)), n, list(range(1, n)), 0),
        ("top-for-bottom", low, list(range(2, n + 1)), n - 1, list(range(1, n - 1)), n),
        ("top-for-second", low, [c for c in range(1, n + 1) if c != n - 1], n - 1, list(range(1, n - 1)), n),
        ("endgame", [1, 4, 9], [2, 5, 9], 7, [3, 11], -2),
    ]


def main():
    path = sys.argv[1]
    t0 = time.perf_counter()
    from gops_solver import load
    sol = load(path)
    print(json.dumps({"path": path, "rules": sol.rules.describe(), "load_s": round(time.perf_counter() - t0, 3)}),
          flush=True)
    for name, a, b, pot, prizes, diff in positions(sol.rules.n, sol.rules.tie):
        t = time.perf_counter()
        q = sol.query(a, b, pot=pot, prizes=prizes, diff=diff)
        ms = (time.perf_counter() - t) * 1e3
        top = sorted(q.strategy_a.items(), key=lambda cp: -cp[1])[:3]
        print(json.dumps({"position": name, "hand_a": a, "hand_b": b, "pot": pot, "prizes": prizes, "diff": diff,
                          "value": q.value, "a_top_bids": [[c, round(p, 4)] for c, p in top],
                          "query_ms": round(ms, 1)}), flush=True)


if __name__ == "__main__":
    main()
