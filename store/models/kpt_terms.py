"""The words of seed 000's KPT report that more than its model needs: apart from the model,
so that what must not load pydantic (the search index, the sessions list) has them too."""

#: A KPT report's sections, in order.
SECTIONS = ("keep", "problem", "try", "omission")

#: Where a try item's learning is to be kept (the command line offers them).
TARGET_TYPES = ("claude_md", "skill", "hook", "memory")
