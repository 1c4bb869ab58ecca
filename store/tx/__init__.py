"""Transactions: every write as one (apply, undo, redo, recovery after a kill), the journal
of the files they write, the reviewed state that follows them, and who may decide."""
