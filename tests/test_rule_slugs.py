"""Rule references cannot drift: every rule has one stable slug, used alike by its rules page, its tests and the code.

A rule in ``docs/rules/<game>.md`` is a numbered item that opens with its title and slug::

    5. **Card order and points** (`rule:card_order`). Trumps rank ... — `test_rule_card_order`

* Its tests are named ``test_rule_<slug>`` or ``test_rule_<slug>__<what>``, live in ``tests/<game>/``, and the item
  names each of them; every ``test_rule_*`` test there belongs to a rule of the page.
* Code and docs cite rules as ``rule:<slug>``; every such citation names a rule of that game. Rule numbers
  (``R5``) are not used to cite rules, since numbers move when rules are added.
* Nothing in the game's code, agent or rules page refers to documents outside the repository: every file name
  it mentions is a file of the repository, and no rule is cited as a section of another document.
* The page's *Snapshot fields* table is the one generated from the game's ``state_fields``.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import pytest

import cardenvs
from cardenvs.core.game import state_fields_markdown

ROOT = Path(__file__).resolve().parent.parent
SLUG = r"[a-z][a-z0-9_]*[a-z0-9]"
RULE_ITEM = re.compile(rf"^\d+\. \*\*[^*]+\*\* \(`rule:({SLUG})`\)", re.MULTILINE)
CITATION = re.compile(rf"\brule:({SLUG})")
TEST_NAME = re.compile(r"`(test_rule_\w+)`")
TEST_DEF = re.compile(r"^def (test_rule_\w+)\(", re.MULTILINE)
RULE_NUMBER = re.compile(r"(?<![\w/.-])R\d+\b")
#: a section sign: citing a section of some other document instead of stating the rule
SECTION_CITATION = re.compile("\N{SECTION SIGN}")
#: a document named by its file name; it must be a file of the repository
DOCUMENT_NAME = re.compile(r"[\w.-]+\.(?:md|txt|rst|pdf)\b")

#: the games whose rules pages are the package's own (a game added from outside keeps its rules elsewhere)
GAMES = [cardenvs.get_game(env_id) for env_id in cardenvs.available_envs()
         if (ROOT / "docs" / "rules" / f"{cardenvs.get_game(env_id).name}.md").is_file()]


@functools.cache
def _repository_file_names() -> frozenset[str]:
    """The names of the repository's own files (hidden folders, caches and the venv left out)."""
    names = set()
    for _folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if not d.startswith(".") and d != "__pycache__"]
        names.update(files)
    return frozenset(names)


def _ids(game) -> str:
    return game.name


def _page(game) -> str:
    return (ROOT / "docs" / "rules" / f"{game.name}.md").read_text()


def _rules_section(page: str) -> str:
    start = page.index("\n## Rules")
    end = page.index("\n## ", start + 1)
    return page[start:end]


def _rule_items(page: str) -> dict[str, str]:
    """slug -> the rule's text, from the rules section of a page."""
    section = _rules_section(page)
    matches = list(RULE_ITEM.finditer(section))
    items = {}
    for match, following in zip(matches, matches[1:] + [None], strict=True):
        slug = match.group(1)
        assert slug not in items, f"slug rule:{slug} is used by two rules"
        items[slug] = section[match.start() : following.start() if following else len(section)]
    return items


def _code_files(game) -> list[Path]:
    files = sorted((ROOT / "cardenvs" / "games" / game.name).glob("*.py"))
    agent = ROOT / "agents" / f"{game.name}.py"
    return files + ([agent] if agent.exists() else [])


def _rule_tests(game) -> dict[str, Path]:
    tests = {}
    for path in sorted((ROOT / "tests" / game.name).glob("*.py")):
        for name in TEST_DEF.findall(path.read_text()):
            tests[name] = path
    return tests


def _slug_of_test(name: str, slugs: set[str]) -> str | None:
    """The rule a ``test_rule_<slug>[__<what>]`` test belongs to (the longest slug that fits)."""
    stem = name.removeprefix("test_rule_")
    fitting = [slug for slug in slugs if stem == slug or stem.startswith(slug + "__")]
    return max(fitting, key=len) if fitting else None


@pytest.mark.parametrize("game", GAMES, ids=_ids)
def test_every_rule_has_a_slug_and_every_numbered_item_is_a_rule(game):
    section = _rules_section(_page(game))
    numbered = re.findall(r"^\d+\. .*$", section, re.MULTILINE)
    items = _rule_items(_page(game))
    assert numbered, "no numbered rules found"
    assert len(items) == len(numbered), [line for line in numbered if not RULE_ITEM.match(line)]


@pytest.mark.parametrize("game", GAMES, ids=_ids)
def test_every_rule_names_its_tests_and_they_exist(game):
    items = _rule_items(_page(game))
    tests = _rule_tests(game)
    for slug, text in items.items():
        named = TEST_NAME.findall(text)
        own = [name for name in named if _slug_of_test(name, set(items)) == slug]
        assert own, f"rule:{slug} names no test_rule_{slug}… test"
        for name in named:
            assert name in tests, f"rule:{slug} names {name}, which is not a test in tests/{game.name}/"


@pytest.mark.parametrize("game", GAMES, ids=_ids)
def test_every_rule_test_belongs_to_a_rule(game):
    slugs = set(_rule_items(_page(game)))
    orphans = [name for name in _rule_tests(game) if _slug_of_test(name, slugs) is None]
    assert not orphans, f"tests named after no rule of docs/rules/{game.name}.md: {orphans}"


@pytest.mark.parametrize("game", GAMES, ids=_ids)
def test_citations_name_rules_of_the_game(game):
    slugs = set(_rule_items(_page(game)))
    sources = {path.relative_to(ROOT): path.read_text() for path in _code_files(game)}
    sources[Path("docs/rules") / f"{game.name}.md"] = _page(game)
    for path, text in sources.items():
        unknown = sorted(set(CITATION.findall(text)) - slugs)
        assert not unknown, f"{path} cites rules that docs/rules/{game.name}.md does not have: {unknown}"


@pytest.mark.parametrize("game", GAMES, ids=_ids)
def test_no_rule_numbers_and_no_outside_documents(game):
    sources = {path.relative_to(ROOT): path.read_text() for path in _code_files(game)}
    sources[Path("docs/rules") / f"{game.name}.md"] = _page(game)
    for path, text in sources.items():
        for number, line in enumerate(text.splitlines(), 1):
            assert not RULE_NUMBER.search(line), f"{path}:{number} cites a rule by number: {line.strip()}"
            assert not SECTION_CITATION.search(line), f"{path}:{number} cites a section of a document: {line.strip()}"
            outside = [name for name in DOCUMENT_NAME.findall(line) if name not in _repository_file_names()]
            assert not outside, f"{path}:{number} cites {outside}, which the repository does not have"


@pytest.mark.parametrize("game", GAMES, ids=_ids)
def test_snapshot_table_is_generated_from_state_fields(game):
    fields = game.state_fields(game.make_params())
    assert all(field.meaning for field in fields), [field.name for field in fields if not field.meaning]
    assert state_fields_markdown(fields) in _page(game)
