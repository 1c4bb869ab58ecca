"""The kinds of seed 002's replies, apart from the model: the command line offers them
without loading pydantic."""

from typing import Literal

ReplyKind = Literal["review", "discussion"]
REPLY_KINDS: tuple[ReplyKind, ...] = ("review", "discussion")
