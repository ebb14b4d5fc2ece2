"""Every command the README and the docs show, and how the repository's tests exercise each one.

``shown`` finds the commands in ``README.md`` and ``docs/``; ``registry.toml`` says, for each
command exactly as shown, how ``tests/test_commands.py`` exercises it; ``toxini`` reads what a
``tox -e ENV`` would run; ``workspace`` runs commands in a fresh copy of the checkout.
"""
