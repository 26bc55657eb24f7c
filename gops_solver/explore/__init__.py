"""``gops explore``: a position explorer in the browser.

:mod:`.positions` holds what the page shows (successors, the stage matrix
over cards, the first round), :mod:`.server` the FastAPI app and its JSON
API, ``static/`` the one hand-written page (no build step, no network).
The web libraries are the optional extra ``pip install gops-solver[explore]``.
"""
