"""The PTO instructions: one module per family (definitions, checks, reference semantics)."""
