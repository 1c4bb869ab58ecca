"""Workspace layout, config resolution and discovery."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store.config import ConfigError, load_config, parse_config
from store.read.kinds import Kind
from store.workspace import Workspace


def test_discovery_finds_every_kind_in_the_demo(demo_root: Path) -> None:
    found = list(Workspace(demo_root).discover())
    kinds = {f.kind for f in found}
    assert kinds >= {
        Kind.KPT,
        Kind.FEEDBACK,
        Kind.SUMMARIES,
        Kind.LESSONS,
        Kind.SKILL,
        Kind.PATTERN,
        Kind.ANTI_PATTERN,
        Kind.MEMORY,
        Kind.PROPOSAL,
        Kind.DISCUSSION,
        Kind.PIECE,
    }
    assert sum(1 for f in found if f.kind is Kind.KPT) == 30


def test_editor_droppings_are_ignored(demo_root: Path) -> None:
    kpt = demo_root / "hurikaeri"
    for name in (
        ".kpt-20261028-001.yaml.swp",
        "kpt-20261028-001.yaml~",
        "4913",
        ".hurikaeri-tmp-abc",
        "#kpt.yaml#",
        "kpt.yaml.tmp",
    ):
        (kpt / name).write_text("garbage: [")
    (demo_root / "knowledge_base" / ".git").mkdir()
    (demo_root / "knowledge_base" / ".git" / "x.yaml").write_text("bad: [")
    names = {f.path.name for f in Workspace(demo_root).discover()}
    assert not names & {"4913", "kpt-20261028-001.yaml~", "x.yaml", "kpt.yaml.tmp"}


def test_groups_and_projects_are_recognised_by_content(demo_root: Path) -> None:
    found = {f.path: f.kind for f in Workspace(demo_root).discover()}
    learned = [p for p in found if "learned" in p.parts]
    assert learned
    from store.read.loader import load_file

    assert {load_file(p, found[p]).kind for p in learned} <= {
        Kind.SKILL,
        Kind.PATTERN,
        Kind.ANTI_PATTERN,
    }


def test_config_file_locations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_config().path is None  # no default file: defaults
    cfg = tmp_path / "c.toml"
    cfg.write_text(
        'root = "~/agents"\n[paths]\npieces = ["~/.takt/pieces", "pieces"]\n[write]\nallowed_dirs = ["~/src"]\n'
    )
    monkeypatch.setenv("HURIKAERI_CONFIG", str(cfg))
    c = load_config()
    assert c.root == Path("~/agents").expanduser()
    ws = Workspace.resolve(None, c)
    assert ws.locations["pieces"] == [Path("~/.takt/pieces").expanduser(), ws.root / "pieces"]
    assert ws.loc("kpt") == ws.root / "hurikaeri"
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "missing.toml")


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({"bogus": 1}, "unknown setting"),
        ({"paths": {"nope": "x"}}, "not a location"),
        ({"paths": {"kpt": 3}}, "string or a list"),
        ({"root": 5}, "root must be"),
    ],
)
def test_bad_config_values(data: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        parse_config(data, Path("c.toml"))


def test_order_key_places_every_demo_document_where_discover_does(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    found = [f.path for f in ws.discover()]
    assert len(found) > 30
    assert sorted(reversed(found), key=ws.order_key) == found


_NAMES = st.text(alphabet="aB0-_.é", min_size=1, max_size=4).filter(
    lambda n: not n.startswith(".") and n not in {"_", "-"}
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    tree=st.lists(
        st.tuples(
            st.sampled_from(
                ["session-summaries", "knowledge_base", "hurikaeri", "memory", "discussions"]
            ),
            st.lists(_NAMES, max_size=3),
            _NAMES,
        ),
        min_size=1,
        max_size=25,
    )
)
def test_order_key_agrees_with_discover_on_any_tree(
    tmp_path_factory: pytest.TempPathFactory,
    tree: list[tuple[str, list[str], str]],
) -> None:
    """Files at each level before its directories, both by name, location by location:
    ``order_key`` puts any set of documents in the order a walk finds them."""
    root = tmp_path_factory.mktemp("ws")
    suffix = {"session-summaries": ".jsonl", "discussions": ".md"}
    for top, dirs, name in tree:
        d = root / top
        if top != "hurikaeri":  # the reports' folder is not walked down
            d = d.joinpath(*dirs)
        try:
            d.mkdir(parents=True, exist_ok=True)
            (d / (name + suffix.get(top, ".yaml"))).write_text("{}\n", encoding="utf-8")
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            continue  # a name taken by a file and a directory both
    ws = Workspace(root)
    found = [f.path for f in ws.discover()]
    assert len(found) >= 1
    assert sorted(reversed(found), key=ws.order_key) == found
