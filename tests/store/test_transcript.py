"""Transcripts: the tolerant lazy reader, the locator and its cache, the corpus samples."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store.config import Config
from store.index.transcript_locator import TranscriptLocator
from store.read.transcript import (
    MAX_DIAGNOSTICS,
    PREVIEW_CAP,
    TEXT_CAP,
    TranscriptReader,
    full_text,
    read_transcript,
    scan_for,
)
from store.workspace import Workspace
from tests.transcript_lines import CORPUS, SID, TranscriptWriter, sample_session

# -- the corpus samples ------------------------------------------------------------------


def test_representative_sample_turns_are_messages() -> None:
    t = read_transcript(CORPUS / "representative_messages.jsonl")
    # 4 typed by the person + 5 model responses; tool results belong to their call's turn
    assert (len(t.turns), t.user_turns, t.assistant_turns) == (9, 4, 5)
    assert [turn.role for turn in t.turns] == [
        "user", "assistant", "user", "assistant", "assistant",
        "user", "assistant", "assistant", "user",
    ]  # fmt: skip
    edit = next(b for b in t.turns[3].blocks if b.kind == "tool_use")
    assert (edit.name, edit.target) == ("Edit", "/tmp/decorator_example.py")
    assert edit.result is not None and edit.result in t.turns[3].blocks
    assert t.complete and t.cwd == "/tmp"
    assert not t.diagnostics  # its summary line is known, not a line of an unknown type


def test_edge_cases_broken_lines_are_diagnostics() -> None:
    t = read_transcript(CORPUS / "edge_cases.jsonl")
    codes = [(d.line, d.code) for d in t.diagnostics]
    assert (10, "transcript-no-content") in codes  # "contenst"
    assert (11, "transcript-no-message") in codes  # message: "error"
    assert (13, "transcript-not-object") in codes
    assert (18, "transcript-bad-block") in codes  # content: ["wow error"]
    assert (17, "transcript-other-session") in codes
    # the failing tool's result is an error in the turn that called it
    failing = t.turns[3]
    assert failing.role == "assistant"
    assert [b.is_error for b in failing.blocks if b.kind == "tool_result"] == [True]
    # Claude Code's own notes are no turns: the caveat and the command output
    assert all(
        not b.text.startswith("Caveat") for turn in t.turns for b in turn.blocks if b.kind == "text"
    )
    assert t.user_turns + t.assistant_turns == len(t.turns)


def test_every_corpus_sample_reads_without_error() -> None:
    for path in sorted(CORPUS.glob("*.jsonl")):
        t = read_transcript(path)
        assert t.complete
        assert t.turns, path.name
        assert [turn.number for turn in t.turns] == list(range(1, len(t.turns) + 1))


# -- generated transcripts ---------------------------------------------------------------


def test_blocks_of_one_response_are_one_turn(tmp_path: Path) -> None:
    path = sample_session().write(tmp_path)
    t = read_transcript(path)
    assert len(t.turns) == 10
    seventh = t.turns[6]
    assert [b.kind for b in seventh.blocks] == [
        "text",
        "tool_use",
        "tool_result",
        "tool_use",
        "tool_result",
    ]
    assert [b.target for b in seventh.tool_calls()] == ["/home/me/app/src/auth.ts", "npm test"]


def test_long_text_is_capped_and_read_again_whole(tmp_path: Path) -> None:
    long = "長" * (TEXT_CAP + 500)
    w = (
        TranscriptWriter()
        .user(long)
        .assistant("", [("Read", {"file_path": "x.py"}, "r" * 5000, False)])
    )
    path = w.write(tmp_path)
    t = read_transcript(path)
    first = t.turns[0].blocks[0]
    assert first.truncated and len(first.text) == TEXT_CAP
    assert full_text(path, first) == long
    result = t.turns[1].blocks[1]
    assert result.truncated and len(result.text) == PREVIEW_CAP
    assert full_text(path, result) == "r" * 5000


def test_a_result_read_again_whole_names_its_other_blocks(tmp_path: Path) -> None:
    """Read again whole, a result's image is ``[image]`` as in its preview, not a blank line."""
    w = TranscriptWriter().assistant("", [("Read", {"file_path": "x.png"}, "", False)])
    line = json.loads(w.lines[-1])
    line["message"]["content"][0]["content"] = [
        {"type": "text", "text": "r" * 5000},
        {"type": "image", "source": {}},
    ]
    w.lines[-1] = json.dumps(line)
    path = w.write(tmp_path)
    result = read_transcript(path).turns[0].blocks[1]
    assert result.truncated and result.text == "r" * PREVIEW_CAP
    assert full_text(path, result) == "r" * 5000 + "\n[image]"


def test_past_the_cap_one_diagnostic_counts_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text("not json\n" * (MAX_DIAGNOSTICS + 7), encoding="utf-8")
    t = read_transcript(path)
    assert len(t.diagnostics) == MAX_DIAGNOSTICS + 1 and t.skipped == MAX_DIAGNOSTICS + 7
    last = t.diagnostics[-1]
    assert (last.code, last.message, last.line) == (
        "transcript-many-problems",
        "7 more problems not listed",
        None,
    )


def test_batches_and_an_unfinished_last_line(tmp_path: Path) -> None:
    w = sample_session()
    path = w.write(tmp_path)
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"type": "user", "message": {"role": "us')  # still being written
    with TranscriptReader(path) as reader:
        assert reader.read(3) is False
        assert len(reader.transcript.turns) == 2
        assert reader.read() is True
    t = reader.transcript
    assert len(t.turns) == 10
    assert [d.code for d in t.diagnostics] == ["transcript-unfinished-line"]
    assert t.diagnostics[0].severity == "warning"


def test_unknown_types_blocks_bom_crlf_and_non_utf8(tmp_path: Path) -> None:
    w = TranscriptWriter()
    w.user("hello")
    w.raw(json.dumps({"type": "brand-new-kind", "x": 1}))
    w.raw(json.dumps({"type": "brand-new-kind", "x": 2}))
    w.raw(json.dumps({"type": "system", "content": "quiet"}))
    w.raw(
        json.dumps(
            {
                "type": "assistant",
                "message": {
                    "id": "m",
                    "content": [{"type": "hologram", "data": 1}, {"type": "text", "text": "ok"}],
                },
            }
        )
    )
    path = tmp_path / "t.jsonl"
    data = (
        b"\xef\xbb\xbf"
        + w.text().replace("\n", "\r\n").encode()
        + b'{"type": "user", "message": {"content": "caf\xe9"}}\n'
    )
    path.write_bytes(data)
    t = read_transcript(path)
    codes = [d.code for d in t.diagnostics]
    assert codes.count("transcript-unknown-type") == 1  # once per type
    assert "transcript-unknown-block" in codes
    assert "transcript-not-utf8" in codes
    assert [turn.role for turn in t.turns] == ["user", "assistant", "user"]
    assert t.turns[1].blocks[0].kind == "other"
    assert t.turns[2].blocks[0].text == "caf\ufffd"


def test_huge_line_is_skipped(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import store.read.transcript as transcript

    monkeypatch.setattr(transcript, "MAX_LINE_BYTES", 1000)
    w = TranscriptWriter().user("a").user("b" * 5000).user("c")
    t = read_transcript(w.write(tmp_path))
    assert [turn.blocks[0].text for turn in t.turns] == ["a", "c"]
    assert [d.code for d in t.diagnostics] == ["transcript-line-too-long"]


def test_missing_file_is_a_diagnostic(tmp_path: Path) -> None:
    t = read_transcript(tmp_path / "nope.jsonl")
    assert t.turns == [] and t.diagnostics[0].code == "transcript-unreadable"


def test_reader_never_writes(tmp_path: Path) -> None:
    path = sample_session().write(tmp_path)
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    os.chmod(path, 0o444)
    read_transcript(path)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


# -- hypothesis: arbitrary lines never crash the reader ----------------------------------

_json_values = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
_record = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["user", "assistant", "summary", "system", "x", 3]),
        "message": st.one_of(
            _json_values,
            st.fixed_dictionaries(
                {
                    "id": st.one_of(st.none(), st.sampled_from(["m1", "m2"])),
                    "content": st.one_of(
                        _json_values,
                        st.lists(
                            st.one_of(
                                _json_values,
                                st.fixed_dictionaries(
                                    {
                                        "type": st.sampled_from(
                                            [
                                                "text",
                                                "tool_use",
                                                "tool_result",
                                                "thinking",
                                                "image",
                                                "?",
                                            ]
                                        ),
                                        "text": _json_values,
                                        "id": st.sampled_from(["t1", "t2", 5]),
                                        "tool_use_id": st.sampled_from(["t1", "t2", None]),
                                        "name": _json_values,
                                        "input": _json_values,
                                        "content": _json_values,
                                        "is_error": _json_values,
                                    }
                                ),
                            ),
                            max_size=4,
                        ),
                    ),
                }
            ),
        ),
        "isSidechain": _json_values,
        "isMeta": _json_values,
        "timestamp": _json_values,
        "sessionId": _json_values,
    }
)
_line = st.one_of(
    _record.map(lambda r: json.dumps(r).encode()),
    _json_values.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=60),
    st.text(max_size=60).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.just(b"[" * 5000),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_line, max_size=12), st.booleans(), st.integers(min_value=1, max_value=5))
def test_arbitrary_lines_never_crash(lines: list[bytes], final_newline: bool, batch: int) -> None:
    data = b"\n".join(lines) + (b"\n" if final_newline else b"")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "x.jsonl"
        path.write_bytes(data)
        with TranscriptReader(path) as reader:
            while not reader.read(batch):
                pass
        t = reader.transcript
        assert [turn.number for turn in t.turns] == list(range(1, len(t.turns) + 1))
        assert t.user_turns + t.assistant_turns == len(t.turns)
        for turn in t.turns:
            for b in turn.blocks:
                assert isinstance(b.text, str) and len(b.text) <= TEXT_CAP
                full_text(path, b)  # reading a block back never raises either
        with TranscriptReader(path, keep_turns=False, text_cap=50) as streaming:
            while not streaming.read(batch):
                pass
            blocks = streaming.take_blocks()
        assert streaming.turns_read == len(t.turns) and not streaming.transcript.turns
        assert all(len(b.text) <= 50 for _turn, b in blocks)
        scan_for(path, "a")  # searching the file never raises


# -- the locator -------------------------------------------------------------------------


def test_locator_finds_by_file_name(tmp_path: Path) -> None:
    root = tmp_path / "root"
    sample_session().write(root)
    TranscriptWriter("other-session").user("hi").write(root, slug="-home-me-other")
    loc = TranscriptLocator(Workspace(root))
    assert loc.find(SID) == root / "projects" / "-home-me-app" / f"{SID}.jsonl"
    assert loc.find("../../etc/passwd") is None and loc.find(None) is None
    assert set(loc.files()) == {SID, "other-session"}


def test_a_transcript_suffix_in_capitals_is_found_at_every_depth(tmp_path: Path) -> None:
    """``.JSONL`` counts the same at the top and in a project folder (the folder's files
    are listed by ``walk_files``, which compares suffixes in any case)."""
    root = tmp_path / "root"
    projects = root / "projects"
    (projects / "-home-me-app").mkdir(parents=True)
    (projects / "top-level.JSONL").write_text("{}\n", encoding="utf-8")
    (projects / "-home-me-app" / "in-project.JSONL").write_text("{}\n", encoding="utf-8")
    assert set(TranscriptLocator(Workspace(root)).files()) == {"top-level", "in-project"}


def test_transcripts_location_moves_with_the_config(tmp_path: Path) -> None:
    elsewhere = tmp_path / "claude-projects"
    sample_session().write(tmp_path / "x")
    (tmp_path / "x" / "projects").rename(elsewhere)
    ws = Workspace(tmp_path / "root", Config(paths={"transcripts": [elsewhere]}))
    assert ws.loc("transcripts") == elsewhere
    assert TranscriptLocator(ws).find(SID) is not None
    assert Workspace(tmp_path / "root").loc("transcripts") == tmp_path / "root" / "projects"


# -- streaming and searching the file ----------------------------------------------------


def _grouped(path: Path) -> list[tuple[int | None, str, str, int]]:
    t = read_transcript(path)
    return [(None, b.kind, b.text, b.line) for b in t.preamble] + [
        (turn.number, b.kind, b.text, b.line) for turn in t.turns for b in turn.blocks
    ]


def test_streaming_hands_out_the_same_blocks() -> None:
    """keep_turns=False: every block once, with its turn, nothing kept (corpus samples,
    broken lines included); in these files the file's order is the turns' order."""
    for path in sorted(CORPUS.glob("*.jsonl")):
        with TranscriptReader(path, keep_turns=False) as reader:
            got = []
            while True:
                done = reader.read(3)
                got += [
                    (turn.number if turn else None, b.kind, b.text, b.line)
                    for turn, b in reader.take_blocks()
                ]
                if done:
                    break
        assert sorted(got, key=lambda g: (g[0] or 0, g[3])) == sorted(
            _grouped(path), key=lambda g: (g[0] or 0, g[3])
        ), path.name
        assert reader.transcript.turns == [] and reader.transcript.preamble == []
        assert reader.turns_read == len(read_transcript(path).turns)


def test_scan_finds_text_past_the_kept_preview(tmp_path: Path) -> None:
    long = "x" * (TEXT_CAP + 10)
    w = TranscriptWriter().user(long + " Zebra 縞馬")
    w.assistant("", [("Bash", {"command": "ls zebra/"}, long + " ZEBRA", False)])
    w.raw(json.dumps({"type": "user", "message": {"content": "caf\u00e9 escaped"}}))
    w.raw('{"type": "user", "message": {"content": "broken')
    path = w.write(tmp_path)
    offsets = [0]
    for line in path.read_bytes().splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    found = scan_for(path, "zebra")
    assert found[offsets[0]] == {"text"}
    call, result = offsets[1], offsets[2]
    assert found[call] == {"toolu_1_0"} and found[result] == {"toolu_1_0"}
    assert scan_for(path, "縞馬") == {offsets[0]: {"text"}}
    assert scan_for(path, "café") == {offsets[3]: {"text"}}  # written as \u00e9
    assert scan_for(path, "") == {} and scan_for(tmp_path / "gone.jsonl", "x") == {}
    assert scan_for(path, "zebra", stop=lambda: True)  # asked only every 2,000 lines
