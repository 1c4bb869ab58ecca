"""A skill drafted from a try-item's rule: its name and its triggers (#41, seed 003).

An empty ``triggers`` never loads, so a draft starts with keywords (the technical words the
rule names), file patterns (for the paths it names) and task types (only what the report says).
The name is what the skill teaches: the rule's subject, or an imperative rule's object.
"""

from __future__ import annotations

import re

_FILE = re.compile(
    r"(?<![\w@])(?:[\w.*~-]+/)*[\w*-]+\.(?:py|ts|tsx|js|jsx|mjs|cs|go|rs|java|kt|rb|php|sql|"
    r"json|ya?ml|toml|md|sh|asmdef|cfg|ini|lock|env)\b"
)
_DIR = re.compile(r"(?<![\w@])(?:[\w.-]+/)+(?=[\s,)`'\"]|$)")
_WORD = re.compile(r"[A-Za-z][\w.+#-]*[A-Za-z0-9+#]|[ァ-ヴー]{3,}")
#: words too common to load a skill by
_STOP = frozenset(
    re.findall(
        r"\w+",
        "the and for with from into that this then than when what which while before after "
        "always never every each any all not use uses using used run runs check add adds "
        "make sure only also first next time instead of are was were been have has had will "
        "should must can could would one two its their them they our your you via per on in "
        "at to by do does did set sets get gets keep keeps write writes read reads start "
        "whether already which there these those about",
    )
)
#: what a report's goals and summary say → the task type skills use (seed 003's names)
_TASK_TYPES = [
    ("bug_fix", r"\bfix|\bbug|修正|不具合|バグ|解決|버그|수정|고쳤|고치|해결"),
    ("feature_addition", r"\badd(?:ed|ing)?\b|\bnew feature|機能追加|追加した|추가했|기능"),
    ("code_implementation", r"\bimplement|実装|구현"),
    ("refactor", r"\brefactor|リファクタ|리팩터|置き換え|replace"),
    ("test", r"\btests?\b|テスト|테스트"),
    ("performance", r"\bperformance|\bOOM\b|\bslow|性能|高速化|성능|메모리 부족"),
    ("data_pipeline", r"\bpipeline|\bETL\b|\bdbt\b|\bAirflow|パイプライン|파이프라인"),
    ("security_review", r"\bsecurity|\bauth|\bJWT\b|\bCORS\b|セキュリティ|認証|보안|인증"),
]
#: a topic marker: Japanese は, Korean 은/는 after a word
_TOPIC = re.compile(
    r"^(?P<s>.{2,40}?)(?:\s*は(?=[\s、]|[^\sはのにをが]))|^(?P<k>.{2,40}?[^\s])(?:은|는)\s"
)
_EN_IMPERATIVE = re.compile(
    r"^(?:always\s+|never\s+|do\s+not\s+|don't\s+)?(?:use|check|run|keep|write|read|set|put|"
    r"pass|compute|include|start|record|test|verify|validate|grep|search|ask|prefer|avoid|"
    r"lower|raise|document|scan|store|name|return|call|log)\s+(?P<o>.+?)(?=\s+(?:before|after|"
    r"when|for|in|with|instead|from|until|unless|if|on|to|via)\b|[,;:(]|\.(?:\s|$)|$)",
    re.IGNORECASE,
)


_CONDITION = re.compile(r"^(?P<c>(?:before|after|when|whenever|if|while)\s+[^,]{3,50}),\s", re.I)


def _technical(word: str) -> bool:
    """A name rather than a plain word: capitals or digits after the first letter, ``_``,
    ``.``, ``-``, ``+``, ``#``, or katakana."""
    return bool(re.search(r".[A-Z0-9_.+#-]|[ァ-ヴ]", word)) or word.isupper()


def keywords(text: str, limit: int = 6) -> list[str]:
    """The technical words ``text`` names, in order, without duplicates or file names (plain
    words of five letters or more when it names fewer than two)."""
    files = _FILE.findall(text)
    quoted = " ".join(re.findall(r"`([^`]+)`", text))
    found: dict[str, str] = {}
    # capitalised, but not as an English sentence's first word: a name (Redis, Unity, Lua)
    english = text.isascii()
    named: set[str] = set()
    for m in _WORD.finditer(text):
        word = m.group(0).strip(".-")
        if len(word) < 3 or word.casefold() in _STOP or any(word in f for f in files):
            continue
        found.setdefault(word.casefold(), word)
        if word[:1].isupper() and (m.start() > 0 or not english):
            named.add(word)
    names = [w for w in found.values() if _technical(w) or w in quoted or w in named]
    if len(names) < 2:
        names += [w for w in found.values() if w not in names and len(w) >= 5]
    return names[:limit]


#: the files rules are written into: where a rule goes, not what it is about
_RULE_FILES = frozenset({"claude.md", "skill.md", "agents.md", "memory.md", "readme.md"})


def file_patterns(text: str) -> list[str]:
    """A glob for every path or file name ``text`` names (not the rule files themselves)."""
    out: list[str] = []
    for path in _FILE.findall(text):
        if path.rsplit("/", 1)[-1].casefold() in _RULE_FILES:
            continue
        out.append(path if "/" in path or "*" in path else f"**/{path}")
    for d in _DIR.findall(text):
        if not any(p.startswith(d) for p in out):
            out.append(d + "**" if d.count("/") > 1 else f"**/{d}**")
    return list(dict.fromkeys(out))


def task_types(report_text: str) -> list[str]:
    """The task types the report's own words name (empty when it names none)."""
    return [name for name, pattern in _TASK_TYPES if re.search(pattern, report_text, re.I)]


def skill_name(rule: str, limit: int = 60) -> str:
    """What the rule teaches, short: its subject, or an imperative's object; else the rule
    cut at a word boundary."""
    m = _TOPIC.match(rule)
    if m:
        return (m.group("s") or m.group("k")).strip(" 、,`")
    m = _CONDITION.match(rule)
    if m:
        return m.group("c").strip()
    m = _EN_IMPERATIVE.match(rule)
    if m and len(m.group("o").strip(" `")) >= 3:
        obj = m.group("o").strip(" `")
        return obj[:1].upper() + obj[1:]
    if len(rule) <= limit:
        return rule
    cut = rule[:limit]
    return (cut.rsplit(" ", 1)[0] if " " in cut[limit // 2 :] else cut).rstrip(" ,;:") + "…"
