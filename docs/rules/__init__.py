"""The rules pages, one Markdown file per game, installed as the package data of ``cardenvs.rules``.

They stay in ``docs/rules/`` for readers of the repository; ``cardenvs rules GAME`` prints the installed copy.
"""
