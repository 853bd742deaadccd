"""Training and evaluation: the duplicate-deal tournament (``spar bench``) and its statistics."""
