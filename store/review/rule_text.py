"""The rule a try-item teaches, as a person would write it into a rule file (#41).

Agents phrase try-items as actions ("CLAUDE.md の…に「X」を追記する", "Remember to X"); the file
receiving a promotion needs the rule itself, so quoted text added, a wrapper naming the place,
or "Remember to" are taken off. A description that negates or takes back, or is longer than
:data:`MAX_SHAPED`, is never shaped (so never turned into its opposite).
"""

from __future__ import annotations

import re

from store.write.markdown_edit import bullet_text

_QUOTES = r"「(?P<a>[^」]+)」|『(?P<b>[^』]+)』|\"(?P<c>[^\"]+)\"|“(?P<d>[^”]+)”|'(?P<e>[^']+)'|`(?P<f>[^`]+)`"

#: a verb of adding or writing, right after the quoted text (Japanese and Korean put the
#: object first: 「X」を追記する, "X" 를 추가한다)
_JA_VERB = r"(?:追記|追加|記載|明記|記述|記録|書き?込|書き足|書く|書いて|加え|残す|残して|入れ)"
_KO_VERB = r"(?:추가|기록|명시|적는|적어|적기|작성|넣는|넣어|넣기|남기|반영|기재)"
_EN_VERB = r"(?:add|append|write|note|record|document|include|insert|put|mention|state)"

_QUOTE_THEN_VERB = re.compile(
    rf"(?:{_QUOTES})\s*(?:という(?:一文|文|ルール|規則|項目)?|(?:이)?라는\s*(?:문장|규칙|내용|항목)?|(?:이)?라고)?\s*"
    rf"(?:を|も|と|って|は|을|를|도|로|으로)?\s*(?:\S{{0,12}}に|\S{{0,12}}에)?\s*(?:{_JA_VERB}|{_KO_VERB})"
)
_VERB_THEN_QUOTE = re.compile(
    rf"\b{_EN_VERB}\b(?:\s+(?:a|an|the|this|one)?\s*(?:rule|line|note|bullet|sentence|reminder|"
    rf"entry|item)?\s*(?:that\s+says|saying|reading|like)?)?\s*:?\s*(?:{_QUOTES})",
    re.IGNORECASE,
)

#: where a rule goes, named by the description: a file, a skill, a section, the notes
_EN_PLACE = (
    r"(?:(?:the|our|a|an)\s+)?(?:[\w./~-]+\.(?:md|markdown|ya?ml|txt)|README|CLAUDE\.md|SKILL\.md|"
    r"[\w ./-]{0,40}?\b(?:skill|skills|rules?|notes|docs?|documentation|memory|guide|section|"
    r"checklist|conventions|instructions))"
)
_EN_WRAPPED = [
    # "Add X to the README" / "Document X in CLAUDE.md's testing section"
    re.compile(
        rf"^(?:please\s+)?{_EN_VERB}\s+(?P<x>.+?)\s+(?:to|in|into|under|within)\s+{_EN_PLACE}"
        r"(?:\s+(?:section|file|under\s+.+))?[.!]?$",
        re.IGNORECASE,
    ),
    # "In the README, note that X" / "Add to CLAUDE.md: X"
    re.compile(
        rf"^(?:in|to)\s+{_EN_PLACE},?\s+(?:{_EN_VERB}\s+)?(?:that\s+)?(?P<x>.+?)[.!]?$",
        re.IGNORECASE,
    ),
    # "Add a rule to the README: X", "Document in CLAUDE.md that X"
    re.compile(
        rf"^{_EN_VERB}\s+(?:(?:a|an|the)\s+(?:[\w-]+\s+)?(?:rule|note|line|bullet|reminder)\s+)?"
        rf"(?:to|in|into|under)\s+{_EN_PLACE}\s*(?::|,?\s+that\b)\s*(?P<x>.+?)[.!]?$",
        re.IGNORECASE,
    ),
    # "Update the testing section of CLAUDE.md to say X"
    re.compile(
        rf"^(?:update|extend|amend|change)\s+.*?{_EN_PLACE}.*?\s+to\s+(?:say|state|require|"
        r"mention|read)\s+(?:that\s+)?(?P<x>.+?)[.!]?$",
        re.IGNORECASE,
    ),
    # "Add a (pre-commit) note / rule that X" / "…to X"
    re.compile(
        rf"^{_EN_VERB}\s+(?:a|an|the)\s+(?:[\w-]+\s+){{0,2}}(?:note|rule|reminder|line|bullet|"
        r"guideline|instruction)\s+(?:that\s+says\s+|saying\s+|that\s+|to\s+)(?P<x>.+?)[.!]?$",
        re.IGNORECASE,
    ),
    # "Remember to X", "Make sure to X", "Next time, X"
    re.compile(
        r"^(?:(?:next\s+time|in\s+future|going\s+forward),?\s+)?(?:remember|make\s+sure|be\s+sure|"
        r"don't\s+forget)\s+(?:to\s+|that\s+)(?P<x>.+?)$",
        re.IGNORECASE,
    ),
]

#: "CLAUDE.md のセキュリティ規約に X を追記する", "SKILL.md の Y セクションへ X を追加"
_JA_PLACE = r"(?:[^\s、。]{0,12}の\s*)?(?:\S+\.(?:md|ya?ml)|CLAUDE\.md|SKILL\.md|README|[^\s、。]{0,20}?(?:\S+\s*)?(?:スキル|規約|ルール|メモリ|ドキュメント|セクション|節|章|チェックリスト))"
_JA_WRAPPED = [
    re.compile(
        rf"^{_JA_PLACE}(?:\s*の\s*[^、。]*?)?\s*(?:に|へ)、?\s*(?P<x>.+?)\s*(?:を|も)\s*"
        rf"{_JA_VERB}(?:する|します|しておく|して|る|く)?。?$"
    ),
    re.compile(
        rf"^(?P<x>.+?)\s*(?:を|も)\s*{_JA_PLACE}(?:\s*の\s*[^、。]*?)?\s*(?:に|へ)\s*"
        rf"{_JA_VERB}(?:する|します|しておく|して|る|く)?。?$"
    ),
]
_KO_PLACE = r"(?:\S+\.(?:md|ya?ml)|CLAUDE\.md|SKILL\.md|README|[^\s,.]{0,20}?(?:스킬|규칙|규약|메모리|문서|섹션|체크리스트))"
_KO_WRAPPED = [
    re.compile(
        rf"^(?:\S+\s+)?{_KO_PLACE}(?:\s+[^,.]*?)?\s*(?:에|에다|으로|로)\s*(?P<x>.+?)\s*(?:을|를|도)\s*"
        rf"{_KO_VERB}(?:한다|하기|합니다|할\s*것|해야\s*한다|다)?\.?$"
    ),
    re.compile(
        rf"^(?P<x>.+?)\s*(?:을|를|도)\s*(?:\S+\s+)?{_KO_PLACE}(?:\s+[^,.]*?)?\s*(?:에|에다|의\s*\S+(?:으로|로)|으로|로)\s*"
        rf"{_KO_VERB}(?:한다|하기|합니다|할\s*것|해야\s*한다|다)?\.?$"
    ),
]


#: A longer description is taken as written.
MAX_SHAPED = 300

#: Words that negate or take back what the sentence adds, looked for outside its quotes.
_NEGATED = re.compile(
    r"\b(?:do\s+not|don't|dont|never|not|no\s+longer|avoid|stop|remove|delete|drop|"
    r"instead\s+of|caus(?:e|ed|es|ing)|without|forbid\w*|prohibit\w*|undo|revert)\b"
    r"|しない|しません|せず|しないで|ないこと|ないように|禁止|削除|消す|消して|取り除|除外|外す|"
    r"やめ|止め|原因|不要|誤り|間違"
    r"|않|말\s*것|말고|마라|마세요|금지|삭제|제거|빼|원인|불필요|잘못",
    re.IGNORECASE,
)


def _negated(text: str) -> bool:
    """Whether ``text`` negates or takes back, outside its quoted spans."""
    return bool(_NEGATED.search(re.sub(_QUOTES, " ", text)))


def _quote_group(m: re.Match[str]) -> str:
    """The name of the quote group that matched (one letter: ``a``…``f``)."""
    return next(k for k, v in m.groupdict().items() if len(k) == 1 and v)


def _sentence(text: str, *, upper: bool) -> str:
    """Surrounding punctuation off; the first letter up for English that lost its verb."""
    text = text.strip().strip(",;:").strip()
    return text[:1].upper() + text[1:] if upper else text


def rule_text(description: str) -> str:
    """The rule-shaped text a promotion of ``description`` starts from (see the module)."""
    text = bullet_text(description)
    if not text or len(text) > MAX_SHAPED or _negated(text):
        return text
    for m in (*_QUOTE_THEN_VERB.finditer(text), *_VERB_THEN_QUOTE.finditer(text)):
        group = _quote_group(m)
        quoted = bullet_text(m.group(group))
        before = text[: m.start(group) - 1][-1:]  # the character before the quote
        code = bool(before) and ((before.isascii() and before.isalnum()) or before in "=(")
        if not code and (len(quoted) >= 8 or (len(quoted) >= 4 and " " in quoted)):
            return quoted
    for pattern in (*_JA_WRAPPED, *_KO_WRAPPED, *_EN_WRAPPED):
        w = pattern.match(text)
        if w and len(w.group("x").strip()) >= 4:
            return _sentence(w.group("x"), upper=pattern in _EN_WRAPPED)
    return text
